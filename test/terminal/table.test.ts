// Lists on a real terminal (a pseudo-terminal, through pty-proxy.py): the built CLI writes a
// table that fits the terminal's width, with a header and the name first, says when a list is
// empty, and shows each page of `list --all` as it arrives, before the next is in. No sleeps:
// the emulator holds the second page back (a latency fault) and tells the test when it is
// asked for (observe), and the test waits for text on the terminal.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { plain, python3Available, runOnPty, SGR, terminalEnv } from "./helpers/pty.js";

let em: TestEmulator;
beforeEach(async (t) => {
  if (!python3Available()) t.skip("python3 with its pty module is not installed");
  em = await startTestEmulator();
});
afterEach(async () => {
  await em?.close();
});

const env = (extra: Record<string, string> = {}) =>
  terminalEnv({ CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey, ...extra });

/** The terminal's lines, escape sequences and carriage returns removed. */
const screenLines = (output: string) => plain(output).replace(/\n$/, "").split("\n");

describe("deploy list on a terminal", () => {
  test("fits a narrow terminal: a header, the name first, long values shortened, times relative", async () => {
    const long = await em.createDeployment(
      "internal_container",
      "a-deployment-name-longer-than-this-terminal-allows",
    );
    await em.createDeployment("external_container", "short");
    const { code, output } = await runOnPty(["deploy", "list"], { env: env(), columns: 60 }).finished();
    expect(code, plain(output)).toBe(0);
    const lines = screenLines(output);
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ID\s+SOURCE\s+UPDATED/);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
    const longRow = lines.find((line) => line.startsWith("a-deploy"))!;
    expect(longRow).toMatch(/^a-deploy\S*…\s+READY\s+/);
    expect(longRow).toContain(`${long.id.slice(0, 8)}…`);
    // Relative to the CLI's clock (the machine's), whatever the emulator's is.
    expect(longRow).toMatch(/\s(just now|in \d+[mhdy]|\d+[mhdy] ago)\s/);
    expect(plain(output)).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    expect(output).toMatch(SGR); // the header is bold
  });

  test("an empty result says so", async () => {
    const { code, output } = await runOnPty(["deploy", "list", "--name", "nothing-by-this-name"], {
      env: env(),
    }).finished();
    expect(code, plain(output)).toBe(0);
    expect(screenLines(output)).toEqual(["No deployments."]);
  });

  test("--all shows the first page while the second is still on its way", async () => {
    for (let i = 0; i < 130; i++)
      await em.createDeployment("internal_container", `row-${String(i).padStart(3, "0")}`);
    const names = async (offset: number) =>
      ((await em.get(`/v2/deployments?limit=100&offset=${offset}`)).json.resources as { name: string }[]).map(
        (d) => d.name,
      );
    const [firstPage, secondPage] = [await names(0), await names(100)];
    expect([firstPage.length, secondPage.length]).toEqual([100, 30]);

    // Once the first page is answered, every later page is held back for ten minutes; the
    // test hears when the CLI asks for the second one.
    let answered = 0;
    const secondAsked = new Promise<void>((resolve) => {
      const stop = em.emulator.observe((event) => {
        if (event.route !== "GET /v2/deployments") return;
        if (event.phase === "handled" && ++answered === 1)
          em.emulator.addFault({ method: "GET", path: "/v2/deployments", latency_ms: 600_000, count: 100 });
        else if (event.phase === "received" && answered >= 1) {
          stop();
          resolve();
        }
      });
    });
    const t = runOnPty(["deploy", "list", "--all"], { env: env({ NO_COLOR: "1" }) });
    try {
      await secondAsked;
      await t.waitFor(firstPage.at(-1)!);
      const shown = plain(t.raw());
      expect(shown).toMatch(/^NAME\s+STATUS\s+ID/);
      for (const name of firstPage) expect(shown).toContain(name);
      for (const name of secondPage) expect(shown).not.toContain(name);
    } finally {
      t.kill();
    }
  });
});
