// Messages for people: always on stderr, so that stdout carries only results. A message may
// quote a server or a file: its control characters are made visible, and colours are painted
// only after (output/safe-text.ts, the one way text for a person is written).
// On GitHub Actions a warning is a `::warning::` annotation, which the log shows too.
import picocolors from "picocolors";
import type { OutStream } from "./io.js";
import { type Paint, painted, styled, visibleLines, writeText } from "./output/safe-text.js";
import { isGuarded, writeWorkflowCommand } from "./output/workflow-commands.js";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  /** Only with --debug / CPCTL_DEBUG=1. Callers redact before calling. */
  debug(message: string): void;
  readonly debugEnabled: boolean;
}

/** The paint for a stream with colour on or off (NO_PAINT, in output/safe-text.ts, loads nothing). */
export function paintFor(colour: boolean): Paint {
  const colors = picocolors.createColors(colour);
  return {
    yellow: painted(colors.yellow),
    red: painted(colors.red),
    dim: painted(colors.dim),
    bold: painted(colors.bold),
    green: painted(colors.green),
  };
}

export function createLogger(stderr: OutStream, paint: Paint, debugEnabled: boolean): Logger {
  return {
    info: (message) => writeText(stderr, `${message}\n`),
    warn: (message) => {
      if (isGuarded(stderr)) writeWorkflowCommand(stderr, "warning", visibleLines(message));
      else writeText(stderr, styled`${paint.yellow("warning:")} ${message}\n`);
    },
    debug: (message) => {
      if (debugEnabled) writeText(stderr, styled`${paint.dim(message)}\n`);
    },
    debugEnabled,
  };
}
