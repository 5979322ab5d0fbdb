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

/** Every header of a table's first line is whole: none cut to "…". */
const expectWholeHeaders = (header: string, known: string[]) => {
  expect(header).not.toContain("…");
  for (const word of header.split(/\s{2,}/)) expect(known, header).toContain(word);
};

describe("tables at 70 columns and narrower", () => {
  const DEPLOYMENT_HEADERS = ["NAME", "STATUS", "ID", "SOURCE", "UPDATED", "LATEST REV", "ACTIVE REV"];

  test("a list keeps the name and status whole: IDs shorten, then other columns go", async () => {
    const agent = await em.createDeployment("gitrepo", "support-agent");
    await em.createDeployment("internal_source", "docs-agent");
    em.emulator.failNextRevision({ deploymentId: agent.id, stage: "BUILDING" });
    expect(
      (await em.patch(`/v2/deployments/${agent.id}`, { source_revision_config: { repo_ref: "b" } })).status,
    ).toBe(200);
    em.settle();
    for (const columns of [70, 60]) {
      const { code, output } = await runOnPty(["deploy", "list"], { env: env(), columns }).finished();
      expect(code, plain(output)).toBe(0);
      const lines = screenLines(output);
      expectWholeHeaders(lines[0]!, DEPLOYMENT_HEADERS);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
      const row = lines.find((line) => line.startsWith("support-agent "))!;
      expect(row).toContain(`${agent.id.slice(0, 8)}…`);
      // At 70 the status is whole; at 60 it is the one value cut, and only it.
      if (columns === 70) expect(row).toContain("READY (latest revision BUILD_FAILED)");
      else expect(row).toMatch(/^support-agent\s+READY \(latest \S.*…\s/);
    }
    const narrow = await runOnPty(["deploy", "list"], { env: env(), columns: 40 }).finished();
    const lines = screenLines(narrow.output);
    expectWholeHeaders(lines[0]!, DEPLOYMENT_HEADERS);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(/^NAME\s+STATUS/);
  });

  test("a revision list keeps the status and the active mark", async () => {
    const api = await em.createDeployment("external_container", "api");
    em.emulator.failNextRevision({ deploymentId: api.id, stage: "DEPLOYING" });
    await em.patch(`/v2/deployments/${api.id}`, {
      source_revision_config: { image_uri: "registry.example.com/acme/a-long-image-name:2026.11.21" },
    });
    em.settle();
    for (const columns of [70, 50]) {
      const { output } = await runOnPty(["deploy", "revisions", "api"], { env: env(), columns }).finished();
      const lines = screenLines(output);
      expectWholeHeaders(lines[0]!, [
        "ID",
        "STATUS",
        "SOURCE",
        "REF",
        "COMMIT",
        "CREATED",
        "UPDATED",
        "ACTIVE",
      ]);
      expect(lines[0]).toMatch(/^ID\s+STATUS\s.*ACTIVE$/);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
      expect(lines.some((line) => /\sDEPLOY_FAILED\s/.test(line))).toBe(true);
      expect(lines.some((line) => /\sDEPLOYED\s.*\*$/.test(line))).toBe(true);
    }
  });

  test("deploy get shows resource_spec and other objects as indented key: value lines", async () => {
    const seed = em.emulator.seed(em.tenantId);
    await em.createDeployment("external_container", "scaled", {
      source_config: {
        listener_id: seed.listeners[0]!.id,
        listener_config: { k8s_namespace: "default" },
        resource_spec: { min_scale: 2, max_scale: 10, cpu: 1, labels: { team: "ml" } },
      },
    });
    const { code, output } = await runOnPty(["deploy", "get", "scaled"], {
      env: env(),
      columns: 70,
    }).finished();
    expect(code, plain(output)).toBe(0);
    const lines = screenLines(output);
    // source_config is its label, then its fields indented, resource_spec's further in.
    const config = lines.indexOf("source_config");
    expect(config, plain(output)).toBeGreaterThan(0);
    const block = lines.slice(config);
    expect(block).toContain("  resource_spec:");
    expect(block).toContain("    min_scale: 2");
    expect(block).toContain("    max_scale: 10");
    expect(block).toContain("    labels:");
    expect(block).toContain("      team: ml");
    expect(block).toContain("  listener_config:");
    expect(block).toContain("    k8s_namespace: default");
    // The labels stay short: an ID value still fits 70 columns.
    expect(lines.find((line) => line.startsWith("latest_revision_id"))!.length).toBeLessThanOrEqual(70);
    expect(plain(output)).not.toContain('{"');
  });
});

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
    // SOURCE and UPDATED have gone before the name is cut; the ID is its first 8 characters.
    expect(lines[0]).toMatch(/^NAME\s+STATUS\s+ID$/);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
    const longRow = lines.find((line) => line.startsWith("a-deploy"))!;
    expect(longRow).toMatch(/^a-deploy\S*…\s+READY\s+/);
    expect(longRow).toContain(`${long.id.slice(0, 8)}…`);
    expect(output).toMatch(SGR); // the header is bold

    // With room for them, times are relative to the CLI's clock (the machine's), whatever
    // the emulator's is.
    const wide = await runOnPty(["deploy", "list"], { env: env(), columns: 120 }).finished();
    const wideLines = screenLines(wide.output);
    expect(wideLines[0]).toMatch(/^NAME\s+STATUS\s+ID\s+SOURCE\s+UPDATED/);
    expect(wideLines.find((line) => line.startsWith("short"))).toMatch(
      /\s(just now|in \d+[mhdy]|\d+[mhdy] ago)(\s|$)/,
    );
    expect(plain(wide.output)).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
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
