import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Ctx } from "../context.js";
import { terminalPrompter } from "./prompter.js";

/** A terminal of streams: what the prompt draws, and the keys typed. */
function terminal(keys: string) {
  const output = new PassThrough();
  let drawn = "";
  output.on("data", (chunk: Buffer) => {
    drawn += chunk.toString();
  });
  const input = new PassThrough();
  input.write(keys);
  const ctx = {
    io: { stderr: { isTTY: true, stream: output, write: () => {} }, stdin: { isTTY: true, stream: input } },
    env: { NO_COLOR: "1" },
    flags: { color: false },
    signal: new AbortController().signal,
  } as unknown as Ctx;
  return { ctx, drawn: () => drawn };
}

/** What the prompt library draws itself: cursor moves and line erasing. */
const OWN_SEQUENCES = /\x1b\[(?:\d*[ABGKJ]|\?25[hl])/g;
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udfff]/;

describe("the terminal's questions show what a server named, never act on it", () => {
  it("a choice's name and description, and the question", async () => {
    const { ctx, drawn } = terminal("\r");
    const prompter = await terminalPrompter(ctx);
    const answer = await prompter.select({
      message: "Git integration \x1b]0;title\x07",
      choices: [{ value: "id-1", name: "evil\u202etxt.exe\x1b[31m", description: "half\ud800" }],
    });
    expect(answer).toBe("id-1");
    const shown = drawn().replace(OWN_SEQUENCES, "");
    expect(shown).not.toMatch(RAW);
    expect(shown).toContain("evil\\u202etxt.exe\\x1b[31m");
  });
});
