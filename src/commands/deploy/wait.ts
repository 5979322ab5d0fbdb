import { runWait, type WaitInput } from "../../operations/after-change.js";
import { examples, idOrPrefix } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";
import { dotenvReportOption, intervalOption, logsOption, timeoutOption, WAIT_HELP } from "./wait-options.js";

export default optionsAre<WaitInput>()(
  defineCommand({
    configure: (command) =>
      command
        .argument("<deployment>", "deployment ID, or its exact name")
        .option("--revision <id>", "wait for this revision (default: the deployment's latest)", idOrPrefix)
        .addOption(timeoutOption())
        .addOption(intervalOption())
        .addOption(logsOption())
        .addOption(dotenvReportOption())
        .addHelpText(
          "after",
          `${WAIT_HELP}${examples("cpctl deploy wait my-agent", "cpctl deploy wait my-agent --timeout 15m -o json | jq -r .result")}`,
        ),
    run: (ctx, [ref], options) => runWait(ctx, ref, options),
  }),
);
