// Messages for people: always on stderr, so that stdout carries only results. A message may
// quote a server or a file: its control characters are made visible, and colours are painted
// only after (output/safe-text.ts, the one way text for a person is written).
// On GitHub Actions a warning is a `::warning::` annotation, which the log shows too.
import type { OutStream } from "./io.js";
import { NO_PAINT, type Paint, painted, styled, visibleLines, writeText } from "./output/safe-text.js";
import { isGuarded, writeWorkflowCommand } from "./output/workflow-commands.js";

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  /** Only with --debug / CPCTL_DEBUG=1. Callers redact before calling. */
  debug(message: string): void;
  readonly debugEnabled: boolean;
}

/**
 * The paint for a stream with colour on or off. picocolors is loaded only for colour: its
 * module asks process.stdout whether it is a terminal as it loads, which creates the stream
 * (a few ms of a command that writes none: cli.ts writes to pipes and files directly).
 */
export async function paintFor(colour: boolean): Promise<Paint> {
  if (!colour) return NO_PAINT;
  const { default: picocolors } = await import("picocolors");
  const colors = picocolors.createColors(true);
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
