// Two changes to one deployment at once (issue 22, item 1). The API has no compare-and-set,
// and secrets, secret_references and resource_spec are sent whole, so a patch planned on a
// stale read undoes whatever another writer did meanwhile. cpctl reads again right before the
// PATCH (a move since the plan: nothing sent) and right after it (a later change that undid
// this one, or a revision started in between: exit 1, the names said). These tests put the
// other writer at each point of that sequence on purpose, then race real pairs of patches.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { frontOf } from "../helpers/front.js";
import type { RecordedRequest } from "../helpers/http-server.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { killSpawnedClis, spawnBuiltCli } from "./helpers.js";

afterEach(closeTestEmulators);
afterEach(killSpawnedClis);

type Secret = { name: string; value: string };

async function secretNames(em: TestEmulator, id: string): Promise<string[]> {
  const { json } = await em.get(`/v2/deployments/${id}`);
  return (json.secrets as Secret[]).map((secret) => secret.name).sort();
}

/** The other writer: a client that read the deployment and sends its own whole secret list. */
function otherWriter(em: TestEmulator, id: string, secrets: Secret[]) {
  return em.patch(`/v2/deployments/${id}`, { secrets });
}

const A = { name: "A", value: "alpha-value" };
const B = { name: "B", value: "bravo-value" };
const C = { name: "C", value: "charlie-value" };

/**
 * cpctl run through a server in front of the emulator that lets the other writer act just
 * before the request `when` picks (the first one it matches) is passed on.
 */
async function withWriterAt(
  em: TestEmulator,
  when: (request: RecordedRequest, seen: RecordedRequest[]) => boolean,
  act: () => Promise<unknown>,
) {
  const seen: RecordedRequest[] = [];
  let acted = false;
  const front = await frontOf(em, {
    intercept: async (request) => {
      seen.push(request);
      if (!acted && when(request, seen)) {
        acted = true;
        await act();
      }
      return undefined;
    },
  });
  return { front, seen, acted: () => acted };
}

const patchesOf = (seen: RecordedRequest[]) => seen.filter((r) => r.method === "PATCH").length;
const isGetOf = (id: string) => (r: RecordedRequest) =>
  r.method === "GET" && r.url === `/v2/deployments/${id}`;

describe("a patch and another writer", () => {
  it("another change between cpctl's read and its write: nothing is sent, exit 1, the fields named", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "shared", { secrets: [A] });
    // The name is looked up by a list; the GET by ID is the read right before the write.
    const { front, seen } = await withWriterAt(em, isGetOf(d.id), () => otherWriter(em, d.id, [A, B]));
    const result = await runCli(["deploy", "patch", "shared", "--secret", "C=charlie-value"], {
      env: cliEnv({ url: front.url, apiKey: em.apiKey }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "deployment shared was changed by someone else since cpctl read it (secrets.B): nothing was sent",
    );
    expect(patchesOf(seen)).toBe(0);
    expect(await secretNames(em, d.id)).toEqual(["A", "B"]);
  });

  it("another change between the last read and the PATCH: the patch lands, and says loudly it may have undone it", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "shared", { secrets: [A] });
    const { front } = await withWriterAt(
      em,
      (r) => r.method === "PATCH",
      () => otherWriter(em, d.id, [A, B]),
    );
    const result = await runCli(["deploy", "patch", "shared", "--secret", "C=charlie-value", "--wait"], {
      env: cliEnv({ url: front.url, apiKey: em.apiKey }),
    });
    expect(result.code).toBe(1);
    const other = (await em.get(`/v2/deployments/${d.id}/revisions`)).json.resources[1].id;
    expect(result.stderr).toContain(
      `another change started revision ${other} of deployment shared between cpctl's last read and this patch, which sent every secret as cpctl had read them: that change may have been undone`,
    );
    // B is gone, and the user knows: the deployment is printed, and the wait was not begun.
    expect(await secretNames(em, d.id)).toEqual(["A", "C"]);
    expect(result.stdout).toContain("shared");
    expect(result.stderr).not.toContain("Waiting");
  });

  it("another change right after the PATCH that undoes it: exit 1, naming what was undone", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "shared", { secrets: [A] });
    const { front } = await withWriterAt(
      em,
      (r, seen) => isGetOf(d.id)(r) && seen.some((earlier) => earlier.method === "PATCH"),
      // A writer that read before cpctl's patch and sends its own list: C is lost.
      () => otherWriter(em, d.id, [A, B]),
    );
    const result = await runCli(["deploy", "patch", "shared", "--secret", "C=charlie-value", "-o", "json"], {
      env: cliEnv({ url: front.url, apiKey: em.apiKey }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "another change to deployment shared came right after this patch and undid part of it: secrets.C",
    );
    expect(JSON.parse(result.stdout).id).toBe(d.id);
  });

  it("another change right after the PATCH that keeps it: a warning, exit 0", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "shared", { secrets: [A] });
    const { front } = await withWriterAt(
      em,
      (r, seen) => isGetOf(d.id)(r) && seen.some((earlier) => earlier.method === "PATCH"),
      () => otherWriter(em, d.id, [A, C, B]),
    );
    const result = await runCli(["deploy", "patch", "shared", "--secret", "C=charlie-value"], {
      env: cliEnv({ url: front.url, apiKey: em.apiKey }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "another change to deployment shared came right after this patch and kept it: secrets.B",
    );
    expect(await secretNames(em, d.id)).toEqual(["A", "B", "C"]);
  });

  it("no other writer: the reads before and after cost a GET each, and nothing is said", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "shared", { secrets: [A] });
    const { front, seen } = await withWriterAt(
      em,
      () => false,
      async () => {},
    );
    const result = await runCli(["deploy", "patch", "shared", "--secret", "C=charlie-value"], {
      env: cliEnv({ url: front.url, apiKey: em.apiKey }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("another change");
    expect(
      seen.map((r) => `${r.method} ${r.url.replace(/[0-9a-f-]{36}/g, "ID").replace(/\?.*/, "")}`),
    ).toEqual([
      "GET /v2/deployments",
      "GET /v2/deployments/ID",
      "PATCH /v2/deployments/ID",
      "GET /v2/deployments/ID",
      "GET /v2/deployments/ID/revisions",
    ]);
  });
});

describe("pairs of patches at once", () => {
  /** Every pair ends with both secrets kept, or with a command that says it was not (exit 1). */
  function expectNothingLostSilently(codes: number[], names: string[], pair: [string, string]) {
    const bothKept = pair.every((name) => names.includes(name));
    if (!bothKept) expect(codes.some((code) => code !== 0)).toBe(true);
  }

  it("in-process, 15 pairs: no secret is ever lost without a command saying so", async () => {
    const em = await startTestEmulator();
    for (let round = 0; round < 15; round++) {
      const d = await em.createDeployment("internal_container", `race-${round}`, { secrets: [A] });
      const patch = (name: string) =>
        runCli(["deploy", "patch", d.id, "--secret", `${name}=${name.toLowerCase()}-value`], {
          env: cliEnv(em),
        });
      const [x, y] = await Promise.all([patch("X"), patch("Y")]);
      expectNothingLostSilently([x.code, y.code], await secretNames(em, d.id), ["X", "Y"]);
      for (const result of [x, y]) expect([0, 1]).toContain(result.code);
    }
  });

  it("as real processes, 5 pairs: the same", async () => {
    const em = await startTestEmulator();
    for (let round = 0; round < 5; round++) {
      const d = await em.createDeployment("internal_container", `proc-race-${round}`, { secrets: [A] });
      const patch = async (name: string) => {
        const { exited } = spawnBuiltCli(
          ["deploy", "patch", d.id, "--secret", `${name}=${name.toLowerCase()}-value`],
          { env: cliEnv(em) },
        );
        return (await exited)[0] ?? -1;
      };
      const codes = await Promise.all([patch("X"), patch("Y")]);
      expectNothingLostSilently(codes, await secretNames(em, d.id), ["X", "Y"]);
    }
  });
});
