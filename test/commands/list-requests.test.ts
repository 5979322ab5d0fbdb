// Lists that cost what they read (issue 34, point 5): a list that fits in one page is one
// request, `--all` included, and a longer one asks no more pages past its end than pages that
// held items (a 4-page list: at most 8 requests in all), on the emulator and on a slow one.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const LIST = "GET /v2/deployments";
const lists = (em: TestEmulator) => em.emulator.stats().requests[LIST] ?? 0;

async function withDeployments(count: number): Promise<TestEmulator> {
  const em = await startTestEmulator();
  for (let i = 0; i < count; i++)
    await em.createDeployment("internal_container", `d-${String(i).padStart(3, "0")}`);
  return em;
}

/** The requests `deploy list --all` sends, and the items it prints. */
async function listAll(em: TestEmulator): Promise<{ requests: number; items: number }> {
  const before = lists(em);
  const r = await runCli(["deploy", "list", "--all", "-o", "json"], { env: cliEnv(em) });
  expect(r.code, r.stderr).toBe(0);
  return { requests: lists(em) - before, items: JSON.parse(r.stdout).length };
}

describe("lists that cost what they read", () => {
  it("3 deployments: --all is one request, and so is a look-up by name", async () => {
    const em = await withDeployments(3);
    expect(await listAll(em)).toEqual({ requests: 1, items: 3 });
    const before = lists(em);
    const got = await runCli(["deploy", "get", "d-001", "-o", "id"], { env: cliEnv(em) });
    expect(got.code, got.stderr).toBe(0);
    expect(lists(em) - before).toBe(1);
  });

  it("a 4-page list: at most 8 requests in all, every item once", async () => {
    const em = await withDeployments(350);
    const run = await listAll(em);
    expect(run.items).toBe(350);
    expect(run.requests).toBeGreaterThanOrEqual(4);
    expect(run.requests).toBeLessThanOrEqual(8);
  });

  it("a slow emulator (every list answer held 20 ms): the same requests", async () => {
    const em = await withDeployments(350);
    em.emulator.addFault({ method: "GET", path: "/v2/deployments", latency_ms: 20, count: 100 });
    const run = await listAll(em);
    expect(run.items).toBe(350);
    expect(run.requests).toBeLessThanOrEqual(8);
    const few = await withDeployments(3);
    few.emulator.addFault({ method: "GET", path: "/v2/deployments", latency_ms: 20, count: 100 });
    expect(await listAll(few)).toEqual({ requests: 1, items: 3 });
  });
});
