// Runs one command line: reads what it names (argv.ts), builds the program with only that
// command's module loaded (program.ts), parses and runs it, and turns every error into a
// message and an exit code (report.ts). `run` takes its streams, environment and clock as
// arguments so that tests run the CLI in-process.
import { CommanderError } from "@commander-js/extra-typings";
import { guessFormat, joinDashedValues, withHelpCommand } from "./argv.js";
import { onGitHubActions } from "./ci/detect.js";
import type { RunDeps } from "./context.js";
import type { SecretRegistry } from "./context-factory.js";
import type { OutputFormat } from "./model/enums.js";
import { buildProgram } from "./program.js";
import { report, reportCommanderError } from "./report.js";

export type { RunDeps } from "./context.js";

export async function run(given: RunDeps): Promise<number> {
  const deps = { ...given, argv: withHelpCommand(given.argv) };
  // On GitHub Actions nothing cpctl writes may become a workflow command (output/workflow-commands.ts).
  if (onGitHubActions(deps.env)) {
    const { guardStreams } = await import("./output/workflow-commands.js");
    deps.io = guardStreams(deps.io);
  }
  const secrets: SecretRegistry = new Set();
  let format: OutputFormat = guessFormat(deps.argv, deps.env);
  let program: Awaited<ReturnType<typeof buildProgram>> | undefined;
  try {
    program = await buildProgram(deps, secrets, (resolved) => {
      format = resolved;
    });
    const { matched } = program;
    await program.program.parseAsync(matched ? joinDashedValues(deps.argv, matched) : deps.argv, {
      from: "user",
    });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return reportCommanderError(error, deps, format, program);
    return report(error, deps, format, secrets, program?.command);
  }
}
