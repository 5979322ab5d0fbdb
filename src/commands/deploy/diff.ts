import picocolors from "picocolors";
import { ExitSignal } from "../../errors.js";
import type { Change, Plan } from "../../manifest/plan.js";
import { jsonText } from "../../output/encode.js";
import { visible } from "../../output/safe-text.js";
import { MASK } from "../../secrets.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption } from "./body-options.js";
import type { CreateOptions } from "./create.js";
import { planFromFile } from "./plan-from-file.js";

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
    const { desired, current, plan } = await planFromFile(ctx, options as unknown as CreateOptions);
    const printer = await ctx.printer();
    const show = (change: Change, value: unknown) =>
      change.secret && !ctx.flags.showSecrets && value != null ? MASK : value;
    const report = {
      name: desired.name,
      deployment_id: current?.id ?? null,
      action: plan.action,
      triggers_revision: plan.action === "create" || plan.triggers.length > 0,
      changes: plan.changes.map((c) => ({ ...c, current: show(c, c.current), desired: show(c, c.desired) })),
    };
    const format = printer.options.format;
    if (format === "table")
      printer.styledLine(renderText(report.name, plan, report.changes, printer.options.color));
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

/** The plan as text; every name, path and value in it made visible before it is coloured. */
function renderText(fileName: string, plan: Plan, changes: Change[], color: boolean): string {
  const paint = picocolors.createColors(color);
  const name = visible(fileName);
  const headline =
    plan.action === "none"
      ? `deployment ${name}: no differences`
      : plan.action === "create"
        ? `deployment ${name} does not exist: apply would create it`
        : `deployment ${name}: apply would patch ${changes.length} field${changes.length === 1 ? "" : "s"}${plan.triggers.length ? ` (new revision: ${plan.triggers.join(", ")})` : " (no new revision)"}`;
  const lines = changes.map((change) => {
    const c = { ...change, path: visible(change.path) };
    if (c.immutable)
      return paint.red(`! ${c.path}: ${value(c.current)} -> ${value(c.desired)} (fixed at creation)`);
    if (c.kind === "add") return paint.green(`+ ${c.path}: ${value(c.desired)}`);
    if (c.kind === "remove") return paint.red(`- ${c.path}: ${value(c.current)}`);
    return paint.yellow(`~ ${c.path}: ${value(c.current)} -> ${value(c.desired)}`);
  });
  return [headline, ...lines.map((line) => `  ${line}`)].join("\n");
}

function value(v: unknown): string {
  return v === undefined ? "null" : visible(jsonText(v));
}
