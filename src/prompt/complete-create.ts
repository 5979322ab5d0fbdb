// Fills in the values a create lacks. On a terminal (ctx.interactive) it asks for them (see
// ask-create.ts, loaded only then), shows the request (secret values masked) on stderr and
// asks to confirm. Anywhere else a missing value is a usage error that names every missing
// flag and prints the command to run again.
import { UsageError } from "../errors.js";
import { isCi } from "../output/format.js";
import type { AskContext } from "./ask-create.js";
import { type MissingField, missingValues, requirementsBySource, rerunCommand } from "./missing.js";
import type { Prompter } from "./prompter.js";

/**
 * Called by `deploy create` after the body is built from the file and flags, before it is
 * validated. `prompter` is for tests; the terminal prompts load only when a question is asked.
 */
export async function completeCreateBody(
  ctx: AskContext,
  body: Record<string, unknown>,
  prompter?: Prompter,
): Promise<void> {
  const missing = missingValues(body);
  if (missing.fields.length === 0) return;
  if (!ctx.interactive)
    throw missingError(ctx, missing.fields, missing.source === null && body.source == null);
  const { askForMissing } = await import("./ask-create.js");
  await askForMissing(ctx, body, prompter);
}

function missingError(ctx: AskContext, fields: MissingField[], sourceUnknown: boolean): UsageError {
  const flags = fields.map((field) => field.flag);
  const error = new UsageError(
    `missing required ${flags.length === 1 ? "value" : "values"}: ${flags.join(", ")}`,
    {
      missing: fields.map((field) => ({ flag: field.flag, field: field.path.join(".") })),
    },
  );
  if (sourceUnknown) error.withHint(`Each source needs more: ${requirementsBySource().join("; ")}.`);
  error.withHint(
    `Not prompting: ${whyNotInteractive(ctx)}. Give ${flags.length === 1 ? "it" : "them"} as flags or in the -f file:`,
  );
  error.withHint(`  ${rerunCommand(ctx.argv, fields)}`);
  return error;
}

function whyNotInteractive(ctx: AskContext): string {
  const reasons = [
    ctx.flags.input === false ? "--no-input was given" : null,
    isCi(ctx.env) ? "CI is set" : null,
    ctx.io.stdin.isTTY ? null : "stdin is not a terminal",
    ctx.io.stdout.isTTY ? null : "stdout is not a terminal",
  ].filter((reason) => reason !== null);
  return reasons.join(", ") || "prompting is off";
}
