// Colour appears only on a terminal, and never with NO_COLOR, --no-color or TERM=dumb (but
// FORCE_COLOR, as Node reads it, wins over all of them except --no-color), in
// every place it can appear: warnings and debug lines (ctx.paint), table output (the
// printer), the wait spinner and the prompts (see progress.test.ts, interactive-create.test.ts).
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { GlobalFlags } from "../../src/context.js";
import { createContext } from "../../src/context-factory.js";
import { colorEnabled } from "../../src/output/format.js";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { freshDir, instantClock } from "../helpers/run-cli.js";
import { plain, python3Available, runOnPty, SGR, terminalEnv } from "./helpers/pty.js";

interface Case {
  what: string;
  tty: boolean;
  env?: Record<string, string>;
  noColorFlag?: boolean;
  colour: boolean;
}

const CASES: Case[] = [
  { what: "a terminal", tty: true, colour: true },
  { what: "a terminal with NO_COLOR=1", tty: true, env: { NO_COLOR: "1" }, colour: false },
  { what: "a terminal with --no-color", tty: true, noColorFlag: true, colour: false },
  { what: "a terminal with TERM=dumb", tty: true, env: { TERM: "dumb" }, colour: false },
  { what: "a pipe", tty: false, colour: false },
  { what: "a pipe with FORCE_COLOR=1", tty: false, env: { FORCE_COLOR: "1" }, colour: true },
  { what: "a terminal with FORCE_COLOR=0", tty: true, env: { FORCE_COLOR: "0" }, colour: false },
  {
    what: "a terminal with NO_COLOR and FORCE_COLOR",
    tty: true,
    env: { NO_COLOR: "1", FORCE_COLOR: "1" },
    colour: true,
  },
];

async function context(c: Case) {
  let stderr = "";
  const stream = {
    write: (text: string) => {
      stderr += text;
    },
    isTTY: c.tty,
    columns: 100,
  };
  const ctx = await createContext({
    argv: [],
    io: {
      stdout: { ...stream, write: () => {} },
      stderr: stream,
      stdin: { isTTY: c.tty, stream: Readable.from([]) },
    },
    env: { TERM: "xterm-256color", ...c.env },
    cwd: freshDir("cwd"),
    homeDir: freshDir("home"),
    clock: instantClock(),
    signal: new AbortController().signal,
    flags: { color: !c.noColorFlag, input: true, debug: true } as GlobalFlags,
    secrets: new Set(),
    onFormat: () => {},
  });
  return { ctx, stderr: () => stderr };
}

describe.each(CASES)("on $what", (c) => {
  test(`warnings and debug lines are ${c.colour ? "" : "not "}coloured`, async () => {
    const { ctx, stderr } = await context(c);
    ctx.log.warn("careful");
    ctx.log.debug("GET /v2/deployments");
    if (c.colour) expect(stderr()).toMatch(SGR);
    else expect(stderr()).not.toMatch(SGR);
    expect(plain(stderr())).toBe("warning: careful\nGET /v2/deployments\n");
  });

  test(`the printer's colour is ${c.colour ? "on" : "off"}`, async () => {
    const { ctx } = await context(c);
    const printer = await ctx.printer();
    expect(printer.options.color).toBe(c.colour);
    expect(colorEnabled({ isTTY: c.tty, env: { TERM: "xterm", ...c.env }, colorFlag: !c.noColorFlag })).toBe(
      c.colour,
    );
  });
});

test("an empty NO_COLOR does not count (no-color.org: present and not empty)", () => {
  expect(colorEnabled({ isTTY: true, env: { NO_COLOR: "" }, colorFlag: true })).toBe(true);
});

describe("table output through a real terminal", () => {
  let em: TestEmulator;
  beforeEach(async (t) => {
    if (!python3Available()) t.skip("python3 with its pty module is not installed");
    em = await startTestEmulator();
    await em.createDeployment("internal_container", "coloured");
  });
  afterEach(async () => {
    await em?.close();
  });

  const list = async (extraEnv: Record<string, string>, extraArgs: string[] = []) => {
    const env = terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey, ...extraEnv });
    const { code, output } = await runOnPty(["deploy", "list", ...extraArgs], {
      env,
      columns: 200,
    }).finished();
    expect(code, plain(output)).toBe(0);
    expect(plain(output)).toContain("coloured");
    return output;
  };

  test("is coloured on a terminal", async () => {
    expect(await list({})).toMatch(SGR);
  });
  test("is not coloured under NO_COLOR", async () => {
    expect(await list({ NO_COLOR: "1" })).not.toMatch(SGR);
  });
  test("is not coloured with --no-color", async () => {
    expect(await list({}, ["--no-color"])).not.toMatch(SGR);
  });
  test("is not coloured with TERM=dumb", async () => {
    expect(await list({ TERM: "dumb" })).not.toMatch(SGR);
  });
});
