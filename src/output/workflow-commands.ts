// Everything cpctl writes on GitHub Actions, escaped once, so that no text a server, a file or
// a user gave becomes a workflow command. The runner reads commands from both streams, two
// ways (actions/runner, ActionCommandManager): a line that starts with `::` once its leading
// white space is trimmed, and, anywhere in a line, the legacy `##[NAME]`. A deployment name, a
// key of deploy.yaml or a server's error message holding `\n::add-mask::...` or
// `##[set-output name=result;]deployed` would otherwise run.
//
// On GitHub Actions, main.ts puts both streams behind `guardStreams`: in what they carry, the
// second colon of a line-leading `::` is written `\u003a`, and the `[` of `##[` is written
// `\u005b`. In JSON (and a double-quoted YAML string) those are escapes of the language itself,
// so a JSON result keeps its exact value; in text they read as the escapes cpctl already writes
// for control characters (output/safe-text.ts). cpctl's own commands (annotations, groups,
// masks) go around the guard, through `writeWorkflowCommand`, and escape their data as the
// runner unescapes it (actions/toolkit's escapeData and escapeProperty).
import type { IO, OutStream } from "../io.js";
import { MASK, maskSecretValues } from "../secrets.js";

/** String.TrimStart's white space (.NET char.IsWhiteSpace), but the line breaks. */
const TRIMMED = new Set([..."\t\v\f \u0085\u00a0\u1680\u2028\u2029\u202f\u205f\u3000"]);
for (let code = 0x2000; code <= 0x200a; code++) TRIMMED.add(String.fromCharCode(code));

/**
 * The escaping of one stream: state carries over from one write to the next, so a command
 * split across writes (`#`, then `#[...]`) is caught too.
 */
class CommandGuard {
  /** The current line holds only white space so far. */
  private blank = true;
  /** The current line is white space and one `:`. */
  private colon = false;
  /** `#` characters just written (up to 2). */
  private hashes = 0;
  /** Nothing written yet, or the last write ended a line: a command written now starts one. */
  atLineStart = true;

  escape(text: string): string {
    let out = "";
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!;
      let replacement: string | null = null;
      if (char === "[" && this.hashes >= 2) replacement = "\\u005b";
      else if (char === ":" && this.colon) replacement = "\\u003a";
      if (char === "\n" || char === "\r") {
        this.blank = true;
        this.colon = false;
        this.hashes = 0;
      } else if (replacement !== null) {
        this.blank = false;
        this.colon = false;
        this.hashes = 0;
      } else {
        this.colon = this.blank && char === ":";
        if (!TRIMMED.has(char)) this.blank = false;
        this.hashes = char === "#" ? Math.min(2, this.hashes + 1) : 0;
      }
      if (replacement !== null) {
        out += text.slice(from, i) + replacement;
        from = i + 1;
      }
    }
    if (text.length > 0) this.atLineStart = /[\r\n]$/.test(text);
    return from === 0 ? text : out + text.slice(from);
  }

  /** A command of cpctl's own was written: it ended with a line break. */
  lineEnded(): void {
    this.atLineStart = true;
    this.blank = true;
    this.colon = false;
    this.hashes = 0;
  }
}

interface Guarded {
  /** The stream as it was, for cpctl's own commands. */
  raw: OutStream;
  guard: CommandGuard;
  /** Where cpctl's own commands about this stream's text go (masks: always stderr). */
  commands: OutStream;
}

const guarded = new WeakMap<OutStream, Guarded>();

function guardedStream(raw: OutStream, commandsTo: () => OutStream): OutStream {
  const guard = new CommandGuard();
  const stream: OutStream = {
    write: (text) => raw.write(guard.escape(text)),
    get isTTY() {
      return raw.isTTY;
    },
    get columns() {
      return raw.columns;
    },
    get stream() {
      return raw.stream;
    },
  };
  guarded.set(stream, {
    raw,
    guard,
    get commands() {
      return commandsTo();
    },
  });
  return stream;
}

/** The streams of a run on GitHub Actions, behind the guard. */
export function guardStreams(io: IO): IO {
  const stderr = guardedStream(io.stderr, () => stderr);
  const stdout = guardedStream(io.stdout, () => stderr);
  return { ...io, stdout, stderr };
}

/** Whether this stream is one of a run on GitHub Actions (see guardStreams). */
export function isGuarded(stream: OutStream): boolean {
  return guarded.has(stream);
}

/**
 * One of cpctl's own workflow commands, `::NAME PROPERTIES::DATA`, written around the guard.
 * Data and property values are escaped as the runner unescapes them.
 */
export function writeWorkflowCommand(
  stream: OutStream,
  name: string,
  data: string,
  properties: Record<string, string | number | undefined> = {},
): void {
  const shown = Object.entries(properties)
    .filter(([, value]) => value !== undefined && value !== "")
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  const line = `::${name}${shown ? ` ${shown}` : ""}::${escapeData(data)}\n`;
  const target = guarded.get(stream);
  if (!target) {
    stream.write(line);
    return;
  }
  // A command counts only at the start of a line: after text that did not end one, a break first.
  target.raw.write(target.guard.atLineStart ? line : `\n${line}`);
  target.guard.lineEnded();
}

/**
 * Before secret values are shown (--show-secrets) on a guarded stream: `::add-mask::` for
 * each, and for each line of one that has several (the runner masks a multi-line value line by
 * line in the log), on stderr, never in the result itself (`$(cpctl config get apiKey
 * --show-secrets)` must get the key alone). The runner reads stdout and stderr apart, so a value
 * printed to the log at once may come before its mask: docs/output.md says so. Nothing off
 * GitHub Actions (`values` is not even asked).
 */
export function maskBeforeShowing(stream: OutStream, values: () => Iterable<string>): void {
  const target = guarded.get(stream);
  if (!target) return;
  const masked = new Set<string>();
  for (const value of values()) {
    for (const part of [value, ...value.split(/\r?\n/)]) {
      if (part.trim() === "" || masked.has(part)) continue;
      masked.add(part);
      writeWorkflowCommand(target.commands, "add-mask", part);
    }
  }
}

/**
 * The secret values in a result that --show-secrets prints: the strings that maskSecretValues
 * (the one rule of what is secret in a result) would replace.
 */
export function secretValuesIn(value: unknown): string[] {
  const found: string[] = [];
  const walk = (shown: unknown, masked: unknown): void => {
    if (shown === masked) return;
    if (typeof shown === "string") {
      if (masked === MASK && shown !== MASK) found.push(shown);
      return;
    }
    if (shown === null || typeof shown !== "object" || masked === null || typeof masked !== "object") return;
    for (const key of Object.keys(shown))
      walk((shown as Record<string, unknown>)[key], (masked as Record<string, unknown>)[key]);
  };
  walk(value, maskSecretValues(value));
  return found;
}

/** A workflow command's data, escaped as the runner reads it (actions/toolkit's escapeData). */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property value (title=...): ':' and ',' end a property, so they are escaped too. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
