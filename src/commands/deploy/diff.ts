import { ExitSignal } from "../../errors.js";
import { paintFor } from "../../log.js";
import type { ApplyPlan as Plan } from "../../model/plan.js";
import { planFromFile } from "../../operations/plan-from-file.js";
import { type ChangeStyle, changeAsJson, changeLines, countChanges } from "../../output/changes.js";
import { joinLines, type Styled, styled, visible } from "../../output/safe-text.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption } from "./body-options.js";

export default defineCommand({
  configure: (command) =>
    addExtraBodyOptions(addFieldOptions(addFileOption(command, true), "create"))
      .option("--exit-code", "exit 1 when there are differences and 0 when there are none (git's rule)")
      .addHelpText(
        "after",
        `\nShows, field by field, what \`cpctl deploy apply\` would change: + added, ~ changed, - removed,
! a field fixed at creation (apply refuses those). Secret values are masked unless --show-secrets.${examples(
          "cpctl deploy diff -f deploy.yaml",
          "cpctl deploy diff -f deploy.yaml --exit-code >/dev/null || echo drifted",
          "cpctl deploy diff -f deploy.yaml -o json | jq '.changes[].path'",
        )}`,
      ),
  run: async (ctx, _args, options) => {
    const { desired, current, plan } = await planFromFile(ctx, options);
    const printer = await ctx.printer();
    const showSecrets = Boolean(ctx.flags.showSecrets);
    const report = {
      name: desired.name,
      deployment_id: current?.id ?? null,
      action: plan.action,
      triggers_revision: plan.action === "create" || plan.triggers.length > 0,
      changes: plan.changes.map((c) => changeAsJson(c, showSecrets)),
    };
    const format = printer.options.format;
    if (format === "table")
      printer.styledLine(
        renderText(visible(report.name), plan, {
          showSecrets,
          paint: await paintFor(printer.options.color),
        }),
      );
    else if (format === "id") for (const change of plan.changes) printer.line(change.path);
    else await printer.value(report);
    const refused = plan.changes.filter((c) => c.immutable);
    if (refused.length > 0) {
      ctx.log.warn(
        `apply would refuse: ${refused.map((c) => c.path).join(", ")} cannot be changed after creation`,
      );
    }
    if (options.exitCode && plan.action !== "none") throw new ExitSignal(1);
  },
});

function renderText(name: string, plan: Plan, style: ChangeStyle): Styled {
  const headline =
    plan.action === "none"
      ? `deployment ${name}: no differences`
      : plan.action === "create"
        ? `deployment ${name} does not exist: apply would create it`
        : `deployment ${name}: apply would change ${countChanges(plan.changes)}${plan.triggers.length ? ` (new revision: ${plan.triggers.join(", ")})` : " (no new revision)"}`;
  return joinLines([headline, ...changeLines(plan.changes, style).map((line) => styled`  ${line}`)]);
}
