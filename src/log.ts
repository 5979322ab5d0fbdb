// Messages for people: always on stderr, so that stdout carries only results. A message may
// quote a server or a file: its control characters are made visible (output/safe-text.ts).
// On GitHub Actions a warning is a `::warning::` annotation, which the log shows too.
import type { OutStream } from "./io.js";
import { visibleLines } from "./output/safe-text.js";
import { isGuarded, writeWorkflowCommand } from "./output/workflow-commands.js";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  /** Only with --debug / CPCTL_DEBUG=1. Callers redact before calling. */
  debug(message: string): void;
  readonly debugEnabled: boolean;
}

export interface Paint {
  yellow(text: string): string;
  red(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  green(text: string): string;
}

export const NO_PAINT: Paint = {
  yellow: (t) => t,
  red: (t) => t,
  dim: (t) => t,
  bold: (t) => t,
  green: (t) => t,
};

export function createLogger(stderr: OutStream, paint: Paint, debugEnabled: boolean): Logger {
  return {
    info: (message) => stderr.write(`${visibleLines(message)}\n`),
    warn: (message) => {
      if (isGuarded(stderr)) writeWorkflowCommand(stderr, "warning", visibleLines(message));
      else stderr.write(`${paint.yellow("warning:")} ${visibleLines(message)}\n`);
    },
    debug: (message) => {
      if (debugEnabled) stderr.write(`${paint.dim(visibleLines(message))}\n`);
    },
    debugEnabled,
  };
}
