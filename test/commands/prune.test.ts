// `deploy prune --previews-of NAME [--pr N] [--older-than DURATION]` (issue 33, point 4): only
// deployments named exactly NAME-pr-<digits> go, found across every page, filtered by pull
// request or by age on the server's clock; confirmed; deleted with the bulk DELETE, 100 IDs a
// call; a failure part-way said truthfully, a lost answer's retry understood.
import { afterEach, describe, expect, it } from "vitest";
import {
  closeTestEmulators,
  deploymentNames,
  startTestEmulator,
  type TestEmulator,
} from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { cliEnv, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const BULK = "DELETE /v2/deployments";
const DAY = 86_400_000;
const bulkCalls = (em: TestEmulator) => em.emulator.stats().requests[BULK] ?? 0;

function prune(em: TestEmulator, args: string[], extra: Parameters<typeof runCli>[1] = {}, base?: string) {
  return runCli(["deploy", "prune", ...args], {
    env: {
      ...cliEnv(em),
      ...(base ? { CPCTL_BASE_URL: base } : {}),
      ...(extra.env as Record<string, string>),
    },
    ...Object.fromEntries(Object.entries(extra).filter(([key]) => key !== "env")),
  });
}

async function create(em: TestEmulator, names: string[]): Promise<void> {
  for (let at = 0; at < names.length; at += 25) {
    await Promise.all(
      names.slice(at, at + 25).map((name) => em.createDeployment("internal_container", name)),
    );
  }
}

const NOT_PREVIEWS = [
  "my-agent",
  "my-agent-pr-",
  "my-agent-pr-1x",
  "my-agent-pr-1-beta",
  "xmy-agent-pr-3",
  "my-agent-2-pr-4",
  "My-Agent-pr-5",
  "other-pr-6",
];

describe("deploy prune: what is a preview of NAME", () => {
  it("deletes every NAME-pr-<digits> and nothing else, NAME included", async () => {
    const em = await startTestEmulator();
    await create(em, [...NOT_PREVIEWS, "my-agent-pr-1", "my-agent-pr-22", "my-agent-pr-007"]);
    const r = await prune(em, ["--previews-of", "my-agent", "--yes", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      deleted: ["my-agent-pr-1", "my-agent-pr-007", "my-agent-pr-22"],
      kept: [],
    });
    expect(await deploymentNames(em)).toEqual([...NOT_PREVIEWS].sort());
    expect(bulkCalls(em)).toBe(1);
    expect(r.stderr).toContain("Previews of my-agent: 3 found, 3 to delete");
    expect(r.stderr).toMatch(/^ {2}delete {2}my-agent-pr-22 +updated just now {2}[0-9a-f-]{36}$/m);
    expect(r.stderr).toContain(
      "deleted 3 preview deployments of my-agent: my-agent-pr-1, my-agent-pr-007, my-agent-pr-22",
    );
  });

  it("--pr N: that pull request's alone; the others are kept, and said so", async () => {
    const em = await startTestEmulator();
    await create(em, ["my-agent", "my-agent-pr-7", "my-agent-pr-70", "my-agent-pr-8"]);
    const r = await prune(em, ["--previews-of", "my-agent", "--pr", "7", "--yes", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      deleted: ["my-agent-pr-7"],
      kept: ["my-agent-pr-8", "my-agent-pr-70"],
    });
    expect(await deploymentNames(em)).toEqual(["my-agent", "my-agent-pr-70", "my-agent-pr-8"]);
  });

  it("prints the deleted names a line each, or their IDs with -o id", async () => {
    const em = await startTestEmulator();
    await create(em, ["app-pr-1", "app-pr-2"]);
    const ids = (await em.get("/v2/deployments?name_contains=app-pr-")).json.resources.map(
      (d: { id: string }) => d.id,
    );
    const text = await prune(em, ["--previews-of", "app", "--pr", "1", "--yes"]);
    expect(text.stdout).toBe("app-pr-1\n");
    const id = await prune(em, ["--previews-of", "app", "--yes", "-o", "id"]);
    expect(ids).toContain(id.stdout.trim());
  });
});

describe("deploy prune --older-than: by the server's clock", () => {
  it("deletes what was not updated for longer, whatever this machine's clock says", async () => {
    const em = await startTestEmulator();
    await create(em, ["my-agent-pr-1", "my-agent-pr-2", "my-agent-pr-3"]);
    em.advance(8 * DAY);
    const [second] = (await em.get("/v2/deployments?name=my-agent-pr-2")).json.resources;
    expect(
      (await em.patch(`/v2/deployments/${second.id}`, { secrets: [{ name: "A", value: "b" }] })).status,
    ).toBe(200);
    await create(em, ["my-agent-pr-4"]);
    // This machine's clock is a year ahead: by it, every preview would be old.
    const clock = instantClock(Date.now() + 365 * DAY);
    const r = await prune(em, ["--previews-of", "my-agent", "--older-than", "7d", "--yes", "-o", "json"], {
      clock,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      deleted: ["my-agent-pr-1", "my-agent-pr-3"],
      kept: ["my-agent-pr-2", "my-agent-pr-4"],
    });
    expect(r.stderr).toMatch(/delete {2}my-agent-pr-1 {2}updated 8d ago/);
    // Both filters: a preview must match both.
    const both = await prune(
      em,
      ["--previews-of", "my-agent", "--pr", "2", "--older-than", "1d", "--yes", "-o", "json"],
      {
        clock,
      },
    );
    expect(JSON.parse(both.stdout)).toEqual({ deleted: [], kept: ["my-agent-pr-2", "my-agent-pr-4"] });
    expect(both.stderr).toContain(
      "nothing to prune: none of the 2 preview deployments of my-agent matches --pr 2 and --older-than 1d00h",
    );
  });
});

describe("deploy prune: asking, dry runs, nothing to do", () => {
  it("nothing matched: exit 0, it says so, nothing is sent to delete", async () => {
    const em = await startTestEmulator();
    await create(em, ["my-agent", "my-agent-pr-x"]);
    const r = await prune(em, ["--previews-of", "my-agent", "--yes", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: [], kept: [] });
    expect(r.stderr).toContain(
      "nothing to prune: no deployment is a preview of my-agent (named my-agent-pr-N)",
    );
    expect(bulkCalls(em)).toBe(0);
  });

  it("--dry-run lists what would go and deletes nothing (no --yes needed)", async () => {
    const em = await startTestEmulator();
    await create(em, ["my-agent-pr-1", "my-agent-pr-2"]);
    const r = await prune(em, ["--previews-of", "my-agent", "--pr", "2", "--dry-run", "-o", "json"], {
      env: { CI: "true" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      deleted: [],
      kept: ["my-agent-pr-1"],
      would_delete: ["my-agent-pr-2"],
    });
    expect(r.stderr).toContain("dry run: nothing was deleted (1 preview deployment would be)");
    expect(bulkCalls(em)).toBe(0);
  });

  it("in CI without --yes: exit 2 naming --yes, before any request", async () => {
    const em = await startTestEmulator();
    await create(em, ["my-agent-pr-1"]);
    const before = em.emulator.stats().total;
    const r = await prune(em, ["--previews-of", "my-agent"], { env: { CI: "true" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pass --yes to delete the preview deployments of my-agent");
    expect(em.emulator.stats().total).toBe(before);
  });

  it("on a terminal: lists, asks, and deletes only on yes", async () => {
    const em = await startTestEmulator();
    await create(em, ["my-agent-pr-1", "my-agent-pr-2"]);
    const no = await prune(em, ["--previews-of", "my-agent"], {
      env: { NO_COLOR: "1" },
      tty: true,
      stdin: "n\n",
    });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain("Previews of my-agent: 2 found, 2 to delete");
    expect(no.stderr).toContain("Delete 2 preview deployments of my-agent on ");
    expect(no.stderr).toContain("cancelled: nothing was changed");
    expect(bulkCalls(em)).toBe(0);
    const yes = await prune(em, ["--previews-of", "my-agent"], {
      env: { NO_COLOR: "1" },
      tty: true,
      stdin: "y\n",
    });
    expect(yes.code, yes.stderr).toBe(0);
    expect(await deploymentNames(em)).toEqual([]);
  });

  it("refuses bad input with exit 2, before any request", async () => {
    const em = await startTestEmulator();
    for (const [args, said] of [
      [["--pr", "7"], "required option '--previews-of <name>' not specified"],
      [["--previews-of", ""], "--previews-of is empty"],
      [["--previews-of", "a".repeat(125)], "--previews-of: the preview's name"],
      [["--previews-of", "app", "--pr", "0"], "expected a pull request's number"],
      [["--previews-of", "app", "--older-than", "soon"], "expected a duration"],
    ] as const) {
      const r = await prune(em, [...args, "--yes"]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(said);
    }
    expect(em.emulator.stats().total).toBe(0);
  });
});

describe("deploy prune: the bulk DELETE", () => {
  it("100 IDs a call at most, every page of the list read", async () => {
    const em = await startTestEmulator();
    await create(
      em,
      Array.from({ length: 230 }, (_, i) => `big-pr-${i + 1}`),
    );
    await create(em, ["big"]);
    const r = await prune(em, ["--previews-of", "big", "--yes", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).deleted).toHaveLength(230);
    expect(bulkCalls(em)).toBe(3);
    expect(await deploymentNames(em)).toEqual(["big"]);
  });

  it("an answer lost after the server deleted: the retry's 404 is looked into, and all count as deleted", async () => {
    const em = await startTestEmulator();
    await create(em, ["app-pr-1", "app-pr-2", "app"]);
    let lost = false;
    const front = await frontOf(em, {
      intercept: async (request) => {
        if (request.method !== "DELETE" || lost) return undefined;
        lost = true;
        await em.request("DELETE", request.url); // carried out...
        return { status: 502, body: { detail: "Bad Gateway" } }; // ...but the answer is lost
      },
    });
    const r = await prune(em, ["--previews-of", "app", "--yes", "-o", "json"], {}, front.url);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).deleted).toEqual(["app-pr-1", "app-pr-2"]);
    expect(r.stderr).toContain("app-pr-1, app-pr-2: gone already when deleted");
    expect(await deploymentNames(em)).toEqual(["app"]);
  });

  it("one deleted by someone else meanwhile: the rest are deleted all the same", async () => {
    const em = await startTestEmulator();
    await create(em, ["app-pr-1", "app-pr-2", "app-pr-3"]);
    const [two] = (await em.get("/v2/deployments?name=app-pr-2")).json.resources;
    let raced = false;
    const front = await frontOf(em, {
      intercept: async (request) => {
        if (request.method === "DELETE" && !raced) {
          raced = true;
          await em.delete(`/v2/deployments/${two.id}`);
        }
        return undefined;
      },
    });
    const r = await prune(em, ["--previews-of", "app", "--yes", "-o", "json"], {}, front.url);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).deleted.sort()).toEqual(["app-pr-1", "app-pr-2", "app-pr-3"]);
    expect(await deploymentNames(em)).toEqual([]);
  });

  it("a failure part-way says truthfully what was deleted and what not, and how to look", async () => {
    const em = await startTestEmulator();
    await create(
      em,
      Array.from({ length: 150 }, (_, i) => `app-pr-${i + 1}`),
    );
    let deletes = 0;
    const front = await frontOf(em, {
      intercept: (request) =>
        request.method === "DELETE" && ++deletes > 1 ? { status: 500, body: { detail: "boom" } } : undefined,
    });
    const r = await prune(em, ["--previews-of", "app", "--yes"], {}, front.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/deleted: app-pr-1, app-pr-2, .*app-pr-100\n/);
    expect(r.stderr).toMatch(/not deleted: app-pr-101, .*app-pr-150\n/);
    expect(r.stderr).toContain(
      `See what is left with: cpctl deploy list --name-contains app-pr- --all --base-url ${front.url}`,
    );
    expect((await deploymentNames(em)).length).toBe(50);
    const json = await prune(em, ["--previews-of", "app", "--yes", "-o", "json"], {}, front.url);
    const error = JSON.parse(json.stderr.trim().split("\n").at(-1)!).error;
    expect(error.details).toMatchObject({ deleted: [], uncertain: [] });
    expect(error.details.not_deleted).toHaveLength(50);
  });
});
