// The emulator under load, on loopback, for a fixed count of requests: 50 concurrent clients
// creating, patching and listing, across five tenants. Nothing lost, nothing doubled, no 500,
// names unique under a race, tenants apart, oversized bodies refused with 413. Then the same
// load against `cpctl emulator --state FILE` in child processes, each killed with SIGKILL at a
// random point (one the moment a new state file is being written): the state file parses,
// and holds every deployment whose create was answered 201 and every patch answered 200.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { type FSWatcher, readdirSync, readFileSync, watch } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/server.js";
import { readStateFile } from "../../src/emulator/store/persistence.js";
import { checkStateShape } from "../../src/emulator/store/state.js";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { freshDir } from "../helpers/run-cli.js";
import { output, report } from "./helpers.js";

const bin = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));
const CLIENTS = 50;
const TENANTS = 5;
const keyOf = (client: number) => `load-test-key-tenant-${client % TENANTS}`;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field.
  json: any;
}

/** One client: its own keep-alive connection, one request at a time. */
function client(baseUrl: string, key: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = (method: string, path: string, body?: unknown, raw?: Buffer): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const payload = raw ?? (body === undefined ? undefined : Buffer.from(JSON.stringify(body)));
      const headers: Record<string, string> = { "X-Api-Key": key };
      if (payload) {
        headers["Content-Type"] = "application/json";
        headers["Content-Length"] = String(payload.length);
      }
      const req = http.request(`${baseUrl}${path}`, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      });
      req.on("error", reject);
      req.end(payload);
    });
  return { request, close: () => agent.destroy() };
}

const body = (name: string) => ({
  name,
  source: "internal_container",
  source_config: {},
  source_revision_config: { image_uri: "registry.example.com/load:1" },
  secrets: [{ name: "TOKEN", value: `value-of-${name}` }],
});

afterEach(closeTestEmulators);

describe("50 concurrent clients against the in-process emulator", () => {
  it("create, patch, list, cross-tenant reads and a name race: nothing lost, nothing doubled, no 500", async () => {
    const em = await startTestEmulator({ stageMs: 5 });
    const ROUNDS = 6;
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const created = new Map<string, { tenant: string; name: string; id: string }>();
    const createdByClient: string[][] = Array.from({ length: CLIENTS }, () => []);
    const tenantOf = (c: number) => em.emulator.tenantFor(keyOf(c));
    let requests = 0;
    let crossTenantChecks = 0;
    let oversized = 0;
    let raceWinners = 0;

    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const api = client(em.url, keyOf(c));
        const call = async (method: string, path: string, payload?: unknown, raw?: Buffer) => {
          requests++;
          const answer = await api.request(method, path, payload, raw);
          count(answer.status);
          return answer;
        };
        try {
          // The race: the ten clients of a tenant all create the same name at once.
          const race = await call("POST", "/v2/deployments", body(`race-${c % TENANTS}`));
          expect([201, 409]).toContain(race.status);
          if (race.status === 201) {
            raceWinners++;
            created.set(race.json.id, { tenant: tenantOf(c), name: race.json.name, id: race.json.id });
          }
          for (let round = 0; round < ROUNDS; round++) {
            const made = await call("POST", "/v2/deployments", body(`c${c}-r${round}`));
            expect(made.status).toBe(201);
            expect(made.json.tenant_id).toBe(tenantOf(c));
            created.set(made.json.id, { tenant: tenantOf(c), name: made.json.name, id: made.json.id });
            createdByClient[c]!.push(made.json.id);

            const patched = await call("PATCH", `/v2/deployments/${made.json.id}`, {
              source_revision_config: { image_uri: "registry.example.com/load:2" },
            });
            expect(patched.status).toBe(200);

            const page = await call("GET", "/v2/deployments?limit=100");
            expect(page.status).toBe(200);
            for (const d of page.json.resources) expect(d.tenant_id).toBe(tenantOf(c));

            // Another client's latest deployment: visible to its own tenant only.
            const other = (c + 1 + round) % CLIENTS;
            const theirs = createdByClient[other]!.at(-1);
            if (theirs) {
              const seen = await call("GET", `/v2/deployments/${theirs}`);
              if (tenantOf(other) === tenantOf(c)) expect(seen.status).toBe(200);
              else {
                expect(seen.status).toBe(404);
                crossTenantChecks++;
              }
            }
          }
          if (c % 10 === 0) {
            // A body over the 1 MiB limit, in the middle of the load.
            const big = Buffer.from(
              JSON.stringify({ ...body(`big-${c}`), padding: "x".repeat(2 * 1024 * 1024) }),
            );
            const refused = await call("POST", "/v2/deployments", undefined, big);
            expect(refused.status).toBe(413);
            expect(refused.json.detail).toContain("too large");
            oversized++;
          }
        } finally {
          api.close();
        }
      }),
    );

    expect(statuses.get(500) ?? 0).toBe(0);
    expect([...statuses.keys()].every((s) => [200, 201, 404, 409, 413].includes(s))).toBe(true);
    expect(raceWinners).toBe(TENANTS);
    expect(em.emulator.stats().total).toBe(requests);

    // Every deployment answered 201 is there, once, in its own tenant only; each was patched once.
    for (let t = 0; t < TENANTS; t++) {
      const tenant = em.emulator.tenantFor(keyOf(t));
      const api = client(em.url, keyOf(t));
      const listed: { id: string; name: string; tenant_id: string; latest_revision_id: string }[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await api.request("GET", `/v2/deployments?limit=100&offset=${offset}`);
        listed.push(...page.json.resources);
        if (page.json.resources.length < 100) break;
      }
      const expected = [...created.values()].filter((d) => d.tenant === tenant);
      expect(listed.map((d) => d.id).sort()).toEqual(expected.map((d) => d.id).sort());
      expect(new Set(listed.map((d) => d.name)).size).toBe(listed.length);
      expect(listed.every((d) => d.tenant_id === tenant)).toBe(true);
      for (const d of listed.filter((x) => !x.name.startsWith("race-"))) {
        const revisions = await api.request("GET", `/v2/deployments/${d.id}/revisions`);
        expect(revisions.json.resources).toHaveLength(2);
      }
      api.close();
    }
    expect(created.size).toBe(CLIENTS * ROUNDS + TENANTS);
    report("load (in-process)", {
      clients: CLIENTS,
      tenants: TENANTS,
      requests,
      deployments: created.size,
      cross_tenant_404s: crossTenantChecks,
      oversized_413s: oversized,
      server_errors: statuses.get(500) ?? 0,
    });
  });

  it("a body over the limit gets 413 whether it announces its length or comes chunked", async () => {
    const em = await startTestEmulator();
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    for (const chunked of [false, true]) {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const headers: Record<string, string> = {
          "X-Api-Key": "k-413-test",
          "Content-Type": "application/json",
        };
        if (!chunked) headers["Content-Length"] = String(big.length);
        const req = http.request(
          `${em.url}/v2/deployments`,
          { method: "POST", headers, agent: false },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
            );
          },
        );
        req.on("error", reject);
        if (chunked) {
          for (let i = 0; i < big.length; i += 64 * 1024) req.write(big.subarray(i, i + 64 * 1024));
          req.end();
        } else req.end(big);
      });
      expect(answer.status, `chunked: ${chunked}`).toBe(413);
      expect(answer.json.detail).toBe("Request body is too large: the limit is 1048576 bytes.");
    }
    // The emulator is still fine afterwards.
    expect((await em.get("/v2/deployments")).status).toBe(200);
  });
});

describe("--state in a child process, killed with SIGKILL at random points of the load", () => {
  let child: ChildProcess | undefined;
  let watcher: FSWatcher | undefined;
  afterEach(() => {
    watcher?.close();
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it("after every kill the state file loads whole, with every acknowledged create and patch, nothing doubled", async () => {
    const dir = freshDir("state");
    const file = join(dir, "cp.state.json");
    // Round by round on the same file, each emulator taking over the one killed before it.
    // Each round is killed after a random number of acknowledged creates; round 1 not at that
    // answer but the moment the next write of the state file starts (its temp file appears),
    // while the new state file is being written.
    const ROUNDS = 3;
    const WRITE_ROUND = 1;
    const tempFile = (name: string | null) => /^\.cp\.state\.json\..*\.tmp$/.test(name ?? "");
    // Hundreds of deployments in all, as a local stand-in holds: every change writes them all.
    const killAfter = fc.sample(fc.integer({ min: 20, max: 100 }), { numRuns: ROUNDS });
    const PER_CLIENT = 30; // a bound: the kill comes first
    const acknowledged = new Map<string, { name: string; tenant: string }>();
    const patched = new Set<string>();
    const figures = { killed_mid_write: 0, clients_cut_off: 0, in_flight_stored: 0 };
    let stderr = "";

    for (let round = 0; round < ROUNDS; round++) {
      child = spawn(process.execPath, [bin, "emulator", "--port", "0", "--state", file, "--stage-ms", "5"], {
        env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const running = child;
      let stdout = "";
      running.stdout!.on("data", (c: Buffer) => {
        stdout += c.toString();
      });
      running.stderr!.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      await output(running, "stdout", /^listening on http:\/\/127\.0\.0\.1:\d+\n/, () => stdout);
      const url = stdout.split("\n")[0]!.slice("listening on ".length);
      const exited = once(running, "exit");

      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        running.kill("SIGKILL");
      };
      let armed = false;
      if (round === WRITE_ROUND) {
        watcher = watch(dir, (_event, name) => {
          if (armed && tempFile(name)) kill();
        });
      }
      const before = acknowledged.size;
      let serverErrors = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, c) => {
          const api = client(url, keyOf(c));
          // Once the emulator is gone, a request fails (reset or refused): this client stops.
          const send = (method: string, path: string, payload?: unknown) =>
            api.request(method, path, payload).catch(() => {
              figures.clients_cut_off++;
              return null;
            });
          try {
            for (let i = 0; i < PER_CLIENT && !killed; i++) {
              const made = await send("POST", "/v2/deployments", body(`k${round}-${c}-${i}`));
              if (!made) return;
              if (made.status >= 500) serverErrors++;
              expect(made.status).toBe(201);
              acknowledged.set(made.json.id, { name: made.json.name, tenant: made.json.tenant_id });
              if (acknowledged.size - before >= killAfter[round]!) {
                if (round === WRITE_ROUND) armed = true;
                else kill();
              }
              const change = await send("PATCH", `/v2/deployments/${made.json.id}`, {
                source_revision_config: { image_uri: "registry.example.com/load:2" },
              });
              if (!change) return;
              if (change.status >= 500) serverErrors++;
              if (change.status === 200) patched.add(made.json.id);
              if (!(await send("GET", "/v2/deployments?limit=20"))) return;
            }
          } finally {
            api.close();
          }
        }),
      );
      watcher?.close();
      const [, signal] = await exited;
      expect(killed, `round ${round} ended before its kill`).toBe(true);
      expect(signal).toBe("SIGKILL");
      expect(serverErrors, stderr).toBe(0);
      // Where the kill landed: before a new state file was renamed into place, or not (a
      // figure, not a condition: the checks below hold either way).
      if (readdirSync(dir).some(tempFile)) figures.killed_mid_write++;

      // The state file is whole (it is only ever renamed into place)...
      expect(checkStateShape(JSON.parse(readFileSync(file, "utf8")))).toBeNull();
      // ...and holds every acknowledged create and patch, nothing twice.
      const state = readStateFile(file)!;
      const stored = new Map(state.deployments.map((d) => [d.id, d]));
      expect(stored.size).toBe(state.deployments.length);
      expect(new Set(state.deployments.map((d) => `${d.tenant_id}/${d.name}`)).size).toBe(
        state.deployments.length,
      );
      for (const [id, { name, tenant }] of acknowledged) {
        const d = stored.get(id);
        expect(
          d,
          `deployment ${name} (${id}) was acknowledged but is not in the state file (round ${round})`,
        ).toBeDefined();
        expect(d).toMatchObject({ name, tenant_id: tenant });
      }
      for (const id of patched) {
        expect(stored.get(id)!.revisions.length).toBe(2);
        expect(stored.get(id)!.source_revision_config.image_uri).toBe("registry.example.com/load:2");
      }
      // At most the creates in flight at each kill are stored without a 201 having arrived.
      figures.in_flight_stored = state.deployments.length - acknowledged.size;
      expect(figures.in_flight_stored).toBeLessThanOrEqual(CLIENTS * (round + 1));
    }

    // A new emulator takes the files over (the dead one's lock included) and serves it all.
    const again = await startEmulator({ port: 0, statePath: file, stageMs: 5 });
    try {
      const seen = new Set<string>();
      for (let t = 0; t < TENANTS; t++) {
        const api = client(again.url, keyOf(t));
        for (let offset = 0; ; offset += 100) {
          const page = await api.request("GET", `/v2/deployments?limit=100&offset=${offset}`);
          expect(page.status).toBe(200);
          for (const d of page.json.resources) seen.add(d.id);
          if (page.json.resources.length < 100) break;
        }
        api.close();
      }
      for (const id of acknowledged.keys()) expect(seen.has(id)).toBe(true);
    } finally {
      await again.close();
    }
    report("load (--state, kill -9)", {
      clients: CLIENTS,
      rounds: ROUNDS,
      kills_after_acknowledged_creates: `${killAfter[0]},${killAfter[1]} and the next write,${killAfter[2]}`,
      acknowledged_creates: acknowledged.size,
      acknowledged_patches: patched.size,
      killed_mid_write: figures.killed_mid_write,
      in_flight_creates_stored: figures.in_flight_stored,
      clients_cut_off: figures.clients_cut_off,
      lost: 0,
    });
  }, 120_000);
});
