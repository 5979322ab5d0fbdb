import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { joinLines, NO_PAINT, painted, styled, visible, writeText } from "./safe-text.js";

function captured() {
  let text = "";
  return {
    out: {
      write: (chunk: string) => {
        text += chunk;
      },
      isTTY: true,
    },
    text: () => text,
  };
}

const HOSTILE = "a\u202eb\x1b[2J\rc\ud800d";
const SHOWN = "a\\u202eb\\x1b[2J\\x0dc\ufffdd";

describe("writeText, the one way text for a person is written", () => {
  it("a plain string: every character a terminal acts on shown, line feeds and tabs kept", () => {
    const { out, text } = captured();
    writeText(out, `${HOSTILE}\n\tnext\n`);
    expect(text()).toBe(`${SHOWN}\n\tnext\n`);
  });

  it("styled text: the program's own sequences kept, every value escaped", () => {
    const { out, text } = captured();
    const bold = painted((t) => `\x1b[1m${t}\x1b[22m`);
    writeText(out, styled`\r\x1b[K${bold("1.")} ${HOSTILE} ${42}\n`);
    expect(text()).toBe(`\r\x1b[K\x1b[1m1.\x1b[22m ${SHOWN} 42\n`);
  });

  it("a paint escapes what it is given before it colours it; styled text is not escaped twice", () => {
    const red = painted((t) => `<${t}>`);
    expect(red(HOSTILE).text).toBe(`<${SHOWN}>`);
    expect(red(styled`x${red("y")}`).text).toBe("<x<y>>");
    expect(NO_PAINT.bold(HOSTILE).text).toBe(SHOWN);
  });

  it("lines joined: plain ones escaped, styled ones kept", () => {
    expect(joinLines(["a\x07", styled`\x1b[1m${"b"}`]).text).toBe("a\\x07\n\x1b[1mb");
  });

  it("styled text put into a plain string by mistake is shown, never acted on", () => {
    expect(`${styled`\x1b[31m${"x"}`}`).toBe("\\x1b[31mx");
  });

  it("escaping twice changes nothing", () => {
    expect(visible(visible(HOSTILE))).toBe(visible(HOSTILE));
  });
});

/**
 * The modules that may write to the process's streams themselves: the writer, the CLI's entry
 * (which makes the streams), and the emulator's one line for its operator (escaped by the same
 * rule, util/visible-text.ts).
 * Results on stdout go through output/printer.ts (its own stream, `this.out`); GitHub workflow
 * commands through output/workflow-commands.ts, which escapes them for the runner.
 */
const ALLOWED = new Set(["src/output/safe-text.ts", "src/cli.ts", "src/emulator/responses.ts"]);

/** `ctx.io.stderr.write(`, `stderr.write(`, `target.stdout?.write(`, `process.stderr`, `console.error(`... */
const DIRECT_WRITE =
  /\b(?:stderr|stdout)\??\.write\s*\(|\bprocess\.(?:stderr|stdout)\b|\bconsole\.(?:log|info|warn|error|debug)\s*\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The code of a file, its comments left out (they may name process.stdout). */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .filter((line) => !line.trim().startsWith("//"))
    .join("\n");
}

describe("nothing writes to stderr (or stdout) around the writer", () => {
  it("the check sees the forms a direct write takes", () => {
    for (const line of [
      "ctx.io.stderr.write(`x`)",
      "stderr.write(x)",
      "target.stdout?.write(x)",
      "process.stderr.write(x)",
      "const s = process.stdout;",
      "console.error(message)",
    ])
      expect(DIRECT_WRITE.test(line), line).toBe(true);
    expect(DIRECT_WRITE.test("writeText(ctx.io.stderr, x)")).toBe(false);
  });

  it("no module of src/ but the allowed ones writes to the streams itself", () => {
    const root = join(import.meta.dirname, "..", "..");
    const offenders = sourceFiles(join(root, "src"))
      .map((path) => relative(root, path).split("\\").join("/"))
      .filter((path) => !ALLOWED.has(path))
      .filter((path) => DIRECT_WRITE.test(code(readFileSync(join(root, path), "utf8"))));
    expect(offenders, "write text for a person with writeText (src/output/safe-text.ts)").toEqual([]);
  });
});
