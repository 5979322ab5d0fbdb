// `deploy delete A B C...` (issue 34, point 2): every reference (ID, exact name, ID prefix)
// resolved before anything is asked or sent, one confirmation naming them all, the bulk DELETE
// of at most 100 IDs a call, a failure part-way said truthfully, and --force (force=true, the
// single call only; a deployment still active refused with a plain message).
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  closeTestEmulators,
  deploymentNames,
  startTestEmulator,
  type TestEmulator,
} from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const BULK = "DELETE /v2/deployments";
const ONE = "DELETE /v2/deployments/{deployment_id}";
const calls = (em: TestEmulator, key: string) => em.emulator.stats().requests[key] ?? 0;

async function create(em: TestEmulator, list: string[]): Promise<{ id: string; name: string }[]> {
  const made: { id: string; name: string }[] = [];
  for (let at = 0; at < list.length; at += 25) {
    made.push(
      ...(await Promise.all(
        list.slice(at, at + 25).map((n) => em.createDeployment("internal_container", n)),
      )),
    );
  }
  return made;
}

function del(em: TestEmulator, args: string[], base?: string) {
  return runCli(["deploy", "delete", ...args], {
    env: { ...cliEnv(em), ...(base ? { CPCTL_BASE_URL: base } : {}) },
  });
}

describe("deploy delete with several deployments", () => {
  it("by ID, name and ID prefix: one bulk call; stderr lists them; -o json an array of {id, name, deleted}", async () => {
    const em = await startTestEmulator();
    const [a, b, c] = await create(em, ["a", "b", "c", "keep"]);
    const r = await del(em, [a!.id, "b", c!.id.slice(0, 13), "--yes", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { id: a!.id, name: "a", deleted: true },
      { id: b!.id, name: "b", deleted: true },
      { id: c!.id, name: "c", deleted: true },
    ]);
    expect(await deploymentNames(em)).toEqual(["keep"]);
    expect(calls(em, BULK)).toBe(1);
    expect(calls(em, ONE)).toBe(0);
    expect(r.stderr).toContain("Deleting 3 deployments:\n");
    expect(r.stderr).toMatch(new RegExp(`^ {2}a {2}${a!.id}$`, "m"));
    expect(r.stderr).toContain("deleted 3 deployments: a, b, c");
  });

  it("-o ndjson one object a line, -o id an ID a line, -o yaml a sequence, a table nothing on stdout", async () => {
    const em = await startTestEmulator();
    const made = await create(em, ["n1", "n2", "i1", "i2", "y1", "y2", "t1", "t2"]);
    const [n1, n2, i1, i2, y1, y2] = made;
    const ndjson = await del(em, ["n1", "n2", "-y", "-o", "ndjson"]);
    expect(ndjson.stdout).toBe(
      `${JSON.stringify({ id: n1!.id, name: "n1", deleted: true })}\n${JSON.stringify({ id: n2!.id, name: "n2", deleted: true })}\n`,
    );
    const ids = await del(em, ["i1", "i2", "-y", "-o", "id"]);
    expect(ids.stdout).toBe(`${i1!.id}\n${i2!.id}\n`);
    const yaml = await del(em, ["y1", "y2", "-y", "-o", "yaml"]);
    expect(parseYaml(yaml.stdout)).toEqual([
      { id: y1!.id, name: "y1", deleted: true },
      { id: y2!.id, name: "y2", deleted: true },
    ]);
    const table = await del(em, ["t1", "t2", "-y"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toBe("");
    expect(await deploymentNames(em)).toEqual([]);
  });

  it("a deployment named twice goes once, by the single call; the output still has the shape of several", async () => {
    const em = await startTestEmulator();
    const [a] = await create(em, ["a"]);
    const r = await del(em, ["a", a!.id, "-y", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ id: a!.id, name: "a", deleted: true }]);
    expect(calls(em, ONE)).toBe(1);
    expect(calls(em, BULK)).toBe(0);
  });

  it("one unknown (a name, an ID): exit 4 naming every unknown one, and nothing deleted", async () => {
    const em = await startTestEmulator();
    await create(em, ["a", "b"]);
    const ghost = randomUUID();
    const r = await del(em, ["a", "ghost", ghost, "b", "--yes"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`no deployment has these IDs, names or ID prefixes: 'ghost', '${ghost}'`);
    expect(r.stderr).toContain("Nothing was deleted.");
    expect(calls(em, BULK) + calls(em, ONE)).toBe(0);
    expect(await deploymentNames(em)).toEqual(["a", "b"]);
    const json = await del(em, ["a", "ghost", "--yes", "-o", "json"]);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: "not_found",
      details: { not_found: ["ghost"] },
    });
  });

  it("in CI without --yes: exit 2 naming --yes, before any request", async () => {
    const em = await startTestEmulator();
    await create(em, ["a", "b"]);
    const before = em.emulator.stats().total;
    const r = await runCli(["deploy", "delete", "a", "b"], { env: cliEnv(em, { CI: "true" }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pass --yes to delete 2 deployments");
    expect(em.emulator.stats().total).toBe(before);
  });

  it("on a terminal: one question naming them all; no deletes nothing, yes deletes all", async () => {
    const em = await startTestEmulator();
    await create(em, ["a", "b", "c"]);
    const env = cliEnv(em, { NO_COLOR: "1" });
    const no = await runCli(["deploy", "delete", "a", "b", "c"], { env, tty: true, stdin: "n\n" });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain("Delete 3 deployments (a, b, c) on");
    expect(no.stderr).toContain("cancelled: nothing was changed");
    expect(await deploymentNames(em)).toEqual(["a", "b", "c"]);
    const yes = await runCli(["deploy", "delete", "a", "b", "c"], { env, tty: true, stdin: "y\n" });
    expect(yes.code, yes.stderr).toBe(0);
    // One answer on stdin was enough: one question.
    expect(yes.stderr).toContain("Deleting 3 deployments:");
    expect(await deploymentNames(em)).toEqual([]);
  });

  it("in colour on a terminal, the list's IDs are dimmed, not shown as escape text", async () => {
    const em = await startTestEmulator();
    const [a] = await create(em, ["a", "b"]);
    const r = await runCli(["deploy", "delete", "a", "b"], { env: cliEnv(em), tty: true, stdin: "n\n" });
    expect(r.stderr).toContain(`  a  \x1b[2m${a!.id}\x1b[22m\n`);
    // (The captured prompt's own cursor moves show as escape text: only the list is looked at.)
    expect(r.stderr.split("→")[0]).not.toContain("\\x1b");
  });

  it("100 IDs a call at most: 230 deployments in 3 calls, resolved by ID 100 a request", async () => {
    const em = await startTestEmulator();
    const made = await create(
      em,
      Array.from({ length: 230 }, (_, i) => `many-${i + 1}`),
    );
    const listsBefore = em.emulator.stats().requests["GET /v2/deployments"] ?? 0;
    const r = await del(em, [...made.map((d) => d.id), "--yes", "-o", "id"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(230);
    expect(calls(em, BULK)).toBe(3);
    expect((em.emulator.stats().requests["GET /v2/deployments"] ?? 0) - listsBefore).toBe(3);
    expect(r.stderr).toContain("deleted 200 of 230");
    expect(await deploymentNames(em)).toEqual([]);
  });

  it("a call that fails part-way: which call, what was deleted and what not, and how to see what is left", async () => {
    const em = await startTestEmulator();
    const made = await create(
      em,
      Array.from({ length: 130 }, (_, i) => `part-${String(i + 1).padStart(3, "0")}`),
    );
    let bulk = 0;
    const front = await frontOf(em, {
      intercept: (request) =>
        request.method === "DELETE" && ++bulk > 1 ? { status: 500, body: { detail: "boom" } } : undefined,
    });
    const r = await del(em, [...made.map((d) => d.name), "--yes"], front.url);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("call 2 of 2 (30 deployments) failed; the one before it was carried out");
    expect(r.stderr).toMatch(/deleted: part-001, .*part-100\n/);
    expect(r.stderr).toMatch(/not deleted: part-101, .*part-130\n/);
    // 30 IDs are too many for a command line worth copying: the whole list.
    expect(r.stderr).toContain(`See what is left with: cpctl deploy list --all --base-url ${front.url}`);
    expect((await deploymentNames(em)).length).toBe(30);
  });

  it("a failed call whose outcome cannot be looked up: said as not known, and why", async () => {
    const em = await startTestEmulator();
    await create(em, ["a", "b"]);
    let resolved = false;
    const reset = () => {
      resolved = false;
    };
    const front = await frontOf(em, {
      intercept: (request) => {
        if (request.method === "DELETE") {
          resolved = true;
          return { status: 500, body: { detail: "boom" } };
        }
        // The look-up after the failure fails too.
        return resolved ? { status: 500, body: { detail: "down" } } : undefined;
      },
    });
    const r = await del(em, ["a", "b", "--yes", "-o", "json"], front.url);
    expect(r.code).toBe(1);
    const error = JSON.parse(r.stderr.trim().split("\n").at(-1)!).error;
    expect(error.details).toMatchObject({ deleted: [], not_deleted: [], uncertain: ["a", "b"] });
    reset();
    const text = await del(em, ["a", "b", "--yes"], front.url);
    expect(text.stderr).toContain("not known: a, b: the failed call may have been carried out");
  });

  it("one deleted by someone else after it was resolved: the rest are deleted, and it is said as gone", async () => {
    const em = await startTestEmulator();
    const [, two] = await create(em, ["one", "two", "three"]);
    let raced = false;
    const front = await frontOf(em, {
      intercept: async (request) => {
        if (request.method === "DELETE" && !raced) {
          raced = true;
          await em.delete(`/v2/deployments/${two!.id}`);
        }
        return undefined;
      },
    });
    const r = await del(em, ["one", "two", "three", "--yes", "-o", "json"], front.url);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((d: { name: string }) => d.name)).toEqual(["one", "two", "three"]);
    expect(r.stderr).toContain("two: gone already when deleted");
    expect(await deploymentNames(em)).toEqual([]);
  });
});

describe("deploy delete --force", () => {
  it("sends force=true on the single call; a deployment at rest is deleted", async () => {
    const em = await startTestEmulator();
    await create(em, ["calm"]);
    const front = await frontOf(em);
    const r = await del(em, ["calm", "--force", "--yes", "-o", "id"], front.url);
    expect(r.code, r.stderr).toBe(0);
    const sent = front.requests.filter((q) => q.method === "DELETE");
    expect(sent.map((q) => new URL(q.url, "http://x").searchParams.get("force"))).toEqual(["true"]);
    expect(await deploymentNames(em)).toEqual([]);
  });

  it("a deployment still active: exit 2, said plainly with what to do, nothing deleted", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await em.createDeployment("gitrepo", "busy");
    const r = await del(em, ["busy", "--force", "--yes"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "the service refused to force-delete deployment busy, which is still active: Deployment ",
    );
    expect(r.stderr).toContain("Wait until its revision ends (cpctl deploy wait busy) and delete it again");
    expect(await deploymentNames(em)).toEqual(["busy"]);
  });

  it("several: one single call each with force=true (the bulk call takes none); the first refused stops it, said truthfully", async () => {
    const em = await startTestEmulator({ stageMs: 1000 });
    await create(em, ["old-1", "old-2"]);
    em.settle();
    await create(em, ["new-3", "later-4"]);
    const front = await frontOf(em);
    const r = await del(em, ["old-1", "old-2", "new-3", "later-4", "--force", "--yes"], front.url);
    expect(r.code).toBe(2);
    const deletes = front.requests
      .filter((q) => q.method === "DELETE")
      .map((q) => new URL(q.url, "http://x"));
    expect(deletes).toHaveLength(3);
    for (const url of deletes) {
      expect(url.pathname).toMatch(/^\/v2\/deployments\/[0-9a-f-]{36}$/);
      expect(url.searchParams.get("force")).toBe("true");
    }
    expect(calls(em, BULK)).toBe(0);
    expect(r.stderr).toContain(
      "the service refused to force-delete deployment new-3, which is still active: Deployment ",
    );
    expect(r.stderr).toContain(
      "call 3 of 4 (1 deployment) failed; the 2 before it were carried out; the 1 after it was not sent",
    );
    expect(r.stderr).toContain("deleted: old-1, old-2\n");
    expect(r.stderr).toContain("not deleted: new-3, later-4\n");
    expect(await deploymentNames(em)).toEqual(["later-4", "new-3"]);
  });
});
