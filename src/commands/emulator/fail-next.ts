// `cpctl emulator fail-next`: the next revision (of one deployment, or any of yours) fails at
// a stage, with the message its log ends with.
import { Option } from "@commander-js/extra-typings";
import { failNextRevision, failRules } from "../../api/emulator-controls.js";
import { UsageError } from "../../errors.js";
import type { FailRule } from "../../model/emulator-controls.js";
import { FAILABLE_STAGES, failureStatusFor } from "../../model/enums.js";
import { resolveDeploymentId } from "../../operations/resolve.js";
import type { View } from "../../output/printer.js";
import { examples, oneOf } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { emulatorTarget, TENANT_CONTROL_HELP } from "./shared.js";

const ruleView: View<FailRule> = {
  id: (rule) => rule.deployment_id ?? "",
  columns: [
    { header: "DEPLOYMENT", value: (rule) => rule.deployment_id ?? "(any of yours)", kind: "id" },
    { header: "STAGE", value: (rule) => rule.stage },
    { header: "MESSAGE", value: (rule) => rule.message ?? "(a realistic default)" },
  ],
  empty: "No fail rules waiting.",
};

export default defineCommand({
  configure: (command) =>
    command
      .addOption(
        new Option("--stage <stage>", "the stage the revision fails in")
          .choices(FAILABLE_STAGES)
          .argParser(oneOf(FAILABLE_STAGES)),
      )
      .option(
        "--deployment <deployment>",
        "only a revision of this deployment (ID, name or ID prefix); default: any of yours",
      )
      .option(
        "--message <text>",
        "the error the revision's log ends with (default: a realistic one for the stage)",
      )
      .option("--list", "list the rules not used yet instead")
      .addHelpText(
        "after",
        `
The next revision that passes through --stage spends that stage's time in it, then ends
CREATE_FAILED (CREATING, QUEUED), BUILD_FAILED (AWAITING_BUILD, BUILDING) or DEPLOY_FAILED
(AWAITING_DEPLOY, DEPLOYING). A build stage waits for a built source's revision (gitrepo,
internal_source). The rule is used once.
${TENANT_CONTROL_HELP}${examples(
  `cpctl emulator fail-next --stage BUILDING --message 'npm ERR! Missing script: "build"'`,
  "cpctl emulator fail-next --stage DEPLOYING --deployment my-agent",
  "cpctl emulator fail-next --list",
)}`,
      ),
  run: async (ctx, _args, options) => {
    if (!options.list && !options.stage) {
      throw new UsageError(`--stage is required: one of ${FAILABLE_STAGES.join(", ")} (or --list)`);
    }
    // Before the deployment is looked up: that look-up carries the credentials too.
    const target = await emulatorTarget(ctx);
    const printer = await ctx.printer();
    if (options.list || !options.stage) return printer.list(await failRules(target), ruleView);
    const deploymentId = options.deployment ? await resolveDeploymentId(ctx, options.deployment) : undefined;
    const rule = await failNextRevision(target, {
      stage: options.stage,
      ...(deploymentId ? { deployment_id: deploymentId } : {}),
      ...(options.message !== undefined ? { message: options.message } : {}),
    });
    if (printer.options.format !== "table" && printer.options.format !== "id") await printer.value(rule);
    ctx.log.info(
      `the next revision of ${options.deployment ? `deployment ${options.deployment}` : "any of your deployments"} that reaches ${rule.stage} will end ${failureStatusFor(options.stage)}`,
    );
  },
});
