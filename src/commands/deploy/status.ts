import { runStatus, type StatusInput } from "../../operations/status.js";
import { examples } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";

export default optionsAre<StatusInput>()(
  defineCommand({
    configure: (command) =>
      command
        .argument("<deployment>", "deployment ID, name or ID prefix")
        .option("--check", "exit 7 unless the health is ok (for scripts and cron)")
        .addHelpText(
          "after",
          `
One screen: the deployment, its address (custom_url), its health (GET URL/ok with the
profile's credentials: ok, failing with the answer, or unknown with the reason: no address,
no answer, or plain http to another host, where the key is not sent), the active revision and
since when, the latest one when it differs, and what the latest revision changed. Ages are
the server's. -o json: {"deployment_id", "deployment_name", "url", "health",
"active_revision": {"id", "status"} or null, "latest_revision": {"id", "status"}}.${examples(
            "cpctl deploy status my-agent",
            "cpctl deploy status my-agent --check || echo 'my-agent is not healthy'",
            "cpctl deploy status my-agent -o json | jq -r .health",
          )}`,
        ),
    run: (ctx, [ref], options) => runStatus(ctx, ref, options),
  }),
);
