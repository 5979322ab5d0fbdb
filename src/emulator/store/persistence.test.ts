// --state: whatever was answered is in the file before the answer leaves, the file is never
// torn (also under kill -9), a restart resumes revisions where they were, and a corrupt file,
// or the journal of an earlier emulator, refuses the start.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  closeTestEmulators,
  httpRequest,
  startTestEmulator,
  type TestEmulator,
} from "../../../test/helpers/emulator.js";
import { buildLogsPath, deployLogsPath, logPage } from "../../../test/helpers/logs.js";
import { applyOp, createRequest, storeOp, TENANTS } from "../../../test/helpers/store-ops.js";
import { startEmulator } from "../server.js";
import { ManualClock } from "./clock.js";
import { readStateFile, StateFile } from "./persistence.js";
import { checkStateShape, type EmulatorState } from "./state.js";
import { MemoryTarballs, Store } from "./store.js";

afterEach(closeTestEmulators);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cpctl-emulator-state-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let fileCounter = 0;
const statePath = () => join(dir, `state-${++fileCounter}.json`);
const readState = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("state file", () => {
  it("is written before the answer leaves, atomically, readable only by its owner", async () => {
    const path = statePath();
    const em = await startTestEmulator({ statePath: path });
    expect(existsSync(path)).toBe(false);
    const created = await em.createDeployment("internal_container", "saved");
    // Read while the emulator still runs: the 201 implies the file already holds it.
    expect(readState(path).deployments.map((d: { id: string }) => d.id)).toEqual([created.id]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    for (let i = 0; i < 5; i++) await em.createDeployment("internal_container");
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("survives a restart: deployments, revisions mid-flight, uploads, tracing projects, fail rules", async () => {
    const path = statePath();
    const clock = new ManualClock();
    const first = await startTestEmulator({ statePath: path, clock, stageMs: 1000 });
    const git = await first.createDeployment("gitrepo", "persisted");
    const source = await first.createDeployment("internal_source");
    const upload = (await first.post(`/v2/deployments/${source.id}/upload-url`)).json;
    const tarball = gzipSync(Buffer.from("tar"));
    await httpRequest(upload.upload_url, {
      method: "PUT",
      headers: { "Content-Type": "application/gzip" },
      body: tarball,
    });
    const unused = (await first.post(`/v2/deployments/${source.id}/upload-url`)).json;
    first.emulator.failNextRevision({ deploymentId: source.id, stage: "BUILDING" });
    first.advance(1500);
    const before = (await first.get(`/v2/deployments/${git.id}/revisions/${git.latest_revision_id}`)).json;
    expect(before.status).toBe("QUEUED");
    await first.close();

    // Another stage length now: revisions created before keep the pace they started with.
    const second = await startTestEmulator({ statePath: path, clock, stageMs: 1 });
    expect((await second.get(`/v2/deployments/${git.id}`)).json.name).toBe("persisted");
    expect((await second.get(`/v2/deployments/${git.id}/revisions/${git.latest_revision_id}`)).json).toEqual(
      before,
    );
    second.advance(1000);
    expect(
      (await second.get(`/v2/deployments/${git.id}/revisions/${git.latest_revision_id}`)).json.status,
    ).toBe("AWAITING_BUILD");
    expect(second.emulator.tarball(upload.object_path)).toEqual(tarball);
    expect(existsSync(`${path}.uploads`)).toBe(true);
    expect(second.emulator.tracingProjects().map((p) => p.name)).toContain("persisted");
    // An upload URL issued before the restart still works (the signing key is saved; only
    // the port is new), and one already used stays used: objects are write-once.
    const put = (url: string) =>
      httpRequest(url.replace(/^http:\/\/[^/]+/, second.url), {
        method: "PUT",
        headers: { "Content-Type": "application/gzip" },
        body: tarball,
      });
    expect((await put(unused.upload_url)).status).toBe(200);
    const replaced = await httpRequest(upload.upload_url.replace(/^http:\/\/[^/]+/, second.url), {
      method: "PUT",
      headers: { "Content-Type": "application/gzip" },
      body: gzipSync(Buffer.from("another tar")),
    });
    expect(replaced.status).toBe(409);
    // The pending fail rule survived too.
    const patched = await second.patch(`/v2/deployments/${source.id}`, {
      source_revision_config: { source_tarball_path: upload.object_path },
    });
    expect(patched.status).toBe(200);
    second.settle();
    const revision = await second.get(
      `/v2/deployments/${source.id}/revisions/${patched.json.latest_revision_id}`,
    );
    expect(revision.json.status).toBe("BUILD_FAILED");
  });

  it("logs read the same after a restart", async () => {
    const path = statePath();
    const clock = new ManualClock();
    const first = await startTestEmulator({ statePath: path, clock, stageMs: 1000 });
    first.emulator.failNextRevision({ stage: "BUILDING", message: "boom" });
    const failed = await first.createDeployment("gitrepo");
    const serving = await first.createDeployment("internal_container");
    first.advance(10 * 1000 + 60_000);
    const paths = [
      buildLogsPath(failed.id, failed.latest_revision_id),
      deployLogsPath(serving.id),
      deployLogsPath(serving.id, serving.latest_revision_id),
    ];
    const read = async (em: TestEmulator) =>
      Promise.all(paths.map(async (p) => (await logPage(em, p, { order: "asc", limit: 1000 })).logs));
    const before = await read(first);
    expect(before[0]!.at(-1)).toMatchObject({ level: "ERROR", message: "boom" });
    expect(before[1]!.length).toBeGreaterThan(12);
    await first.close();

    const second = await startTestEmulator({ statePath: path, clock, stageMs: 5 });
    expect(await read(second)).toEqual(before);
    await second.close();
  });

  it("keeps skipped time of the default clock across a restart", async () => {
    const path = statePath();
    const first = await startEmulator({ port: 0, statePath: path });
    const hour = 3_600_000;
    const answer = await httpRequest(`${first.url}/_emulator/clock`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ advance_ms: hour }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json.offset_ms).toBe(hour);
    await first.close();
    const second = await startEmulator({ port: 0, statePath: path });
    try {
      expect(second.now()).toBeGreaterThanOrEqual(Date.now() + hour - 1000);
    } finally {
      await second.close();
    }
  });

  it("starts empty when the file is missing, and refuses a corrupt or foreign file", async () => {
    const missing = statePath();
    const em = await startEmulator({ port: 0, statePath: missing });
    await em.close();

    const corrupt = statePath();
    writeFileSync(corrupt, '{"format": "cpctl-emulator-state", "vers');
    await expect(startEmulator({ port: 0, statePath: corrupt })).rejects.toThrow(
      /state file .* not valid JSON/,
    );
    const foreign = statePath();
    writeFileSync(foreign, JSON.stringify({ hello: "world" }));
    await expect(startEmulator({ port: 0, statePath: foreign })).rejects.toThrow(
      /"format" is not "cpctl-emulator-state"/,
    );
    const empty = statePath();
    writeFileSync(empty, "");
    await expect(startEmulator({ port: 0, statePath: empty })).rejects.toThrow(/unusable/);
    // Refusing never rewrites the file.
    expect(readFileSync(foreign, "utf8")).toBe('{"hello":"world"}');
  });

  it("refuses a second emulator on the same file, and a directory that is missing", async () => {
    const path = statePath();
    const first = await startEmulator({ port: 0, statePath: path });
    await expect(startEmulator({ port: 0, statePath: path })).rejects.toThrow(
      /in use by another emulator \(process \d+ on host /,
    );
    await first.close();
    const second = await startEmulator({ port: 0, statePath: path });
    await second.close();
    expect(existsSync(`${path}.lock`)).toBe(false);

    await expect(
      startEmulator({ port: 0, statePath: join(dir, "no", "such", "state.json") }),
    ).rejects.toThrow(/directory of the state file .* does not exist/);
  });

  it("removes temp files a killed writer left behind", async () => {
    const path = statePath();
    const stale = join(dirname(path), `.${path.split("/").pop()}.999.1.tmp`);
    writeFileSync(stale, "{half");
    const em = await startEmulator({ port: 0, statePath: path });
    await em.close();
    expect(existsSync(stale)).toBe(false);
  });
});

describe("written whole at every change", () => {
  /** A StateFile and its Store, as startEmulator wires them. */
  function openState(path: string) {
    const file = new StateFile(path);
    file.lock();
    const store = new Store(file.load(), {
      stageMs: 1000,
      tarballs: new MemoryTarballs(),
      commit: (state) => file.save(state),
    });
    return { file, store };
  }
  /** A state as its file holds it (a JSON round trip). */
  const comparable = (state: EmulatorState) => JSON.parse(JSON.stringify(state)) as EmulatorState;

  it("after every change the state file alone is whole and holds exactly that change and all before", () => {
    const path = statePath();
    const { file, store } = openState(path);
    const clock = new ManualClock();
    store.createDeployment(TENANTS[0]!, createRequest("first", "internal_container"), clock.now());
    for (const op of fc.sample(storeOp({ reset: true }), { numRuns: 300 })) {
      clock.advance(1000);
      applyOp(store, op, clock.now());
      // What a kill -9 now leaves (writes are synchronous: between two steps of the event
      // loop the file is what a killed process leaves).
      const saved = JSON.parse(readFileSync(path, "utf8"));
      expect(checkStateShape(saved)).toBeNull();
      expect(saved).toEqual(comparable(store.contents()));
    }
    const before = readFileSync(path);
    file.close();
    // A clean stop has nothing left to write, and the next start reads it all back.
    expect(readFileSync(path)).toEqual(before);
    const again = openState(path);
    expect(comparable(again.store.contents())).toEqual(comparable(store.contents()));
    again.file.close();
    // A change after the stop is refused, not acknowledged.
    expect(() => store.setClockOffset(1)).toThrow(/stopping: this change was not saved/);
  });

  it("refuses the journal an earlier emulator left beside the file, and changes neither", async () => {
    const path = statePath();
    const first = await startTestEmulator({ statePath: path });
    await first.createDeployment("internal_container", "kept");
    await first.close();
    const state = readFileSync(path);
    const journal = `${path}.journal`;
    writeFileSync(journal, '{"seq":9}\n');
    const refusal =
      /cannot start: .*\.journal exists: an earlier cpctl emulator kept there changes that .* may not hold, and this one no longer reads such journals\. To keep those changes, start that earlier cpctl on the file and stop it with Ctrl-C .*; or move the journal away to start from the state file alone, without them\./;
    await expect(startEmulator({ port: 0, statePath: path })).rejects.toThrow(refusal);
    expect(readFileSync(path)).toEqual(state);
    expect(readFileSync(journal, "utf8")).toBe('{"seq":9}\n');
    expect(existsSync(`${path}.lock`)).toBe(false);
    // A journal without its state file is refused too.
    const orphan = statePath();
    writeFileSync(`${orphan}.journal`, '{"seq":9}\n');
    await expect(startEmulator({ port: 0, statePath: orphan })).rejects.toThrow(refusal);
    expect(existsSync(orphan)).toBe(false);
    // Moved away: the state file alone.
    rmSync(journal);
    const second = await startTestEmulator({ statePath: path });
    expect((await second.get("/v2/deployments?name=kept")).json.resources).toHaveLength(1);
  });
});

describe("kill -9", () => {
  let entry: string;
  beforeAll(async () => {
    // A tiny entry bundled with esbuild, so the child runs the emulator's own sources
    // without depending on the CLI build.
    entry = join(dir, "emulator-entry.mjs");
    await build({
      stdin: {
        contents: [
          'import { startEmulator } from "../server.js";',
          "const em = await startEmulator({ port: 0, statePath: process.argv[2], stageMs: 0 });",
          "process.stdout.write('listening on ' + em.url + '\\n');",
        ].join("\n"),
        resolveDir: dirname(fileURLToPath(import.meta.url)),
        loader: "ts",
        sourcefile: "emulator-entry.ts",
      },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: entry,
      logLevel: "silent",
    });
  });

  const children = new Set<ChildProcess>();
  afterAll(() => {
    for (const child of children) child.kill("SIGKILL");
  });

  function spawnEmulator(path: string): Promise<{ child: ChildProcess; url: string }> {
    const child = spawn(process.execPath, [entry, path], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    child.on("exit", () => children.delete(child));
    return new Promise((resolve, reject) => {
      let out = "";
      let err = "";
      child.stdout!.on("data", (chunk) => {
        out += chunk;
        const match = /^listening on (http:\/\/\S+)\n/.exec(out);
        if (match) resolve({ child, url: match[1]! });
      });
      child.stderr!.on("data", (chunk) => {
        err += chunk;
      });
      child.on("exit", (code) => reject(new Error(`emulator exited (${code}) before listening: ${err}`)));
    });
  }

  it("loses nothing that got a 201 and never leaves the file torn", async () => {
    const path = statePath();
    for (let round = 0; round < 2; round++) {
      const { child, url } = await spawnEmulator(path);
      const exited = new Promise((resolve) => child.on("exit", resolve));
      const confirmed: string[] = [];
      const killAfter = 40 + round * 17;
      let killed = false;
      const worker = async (workerId: number) => {
        for (let i = 0; !killed; i++) {
          const name = `r${round}-w${workerId}-${i}`;
          try {
            const response = await httpRequest(`${url}/v2/deployments`, {
              method: "POST",
              headers: { "X-Api-Key": "kill-test", "Content-Type": "application/json" },
              body: JSON.stringify({
                name,
                source: "internal_container",
                source_config: {},
                source_revision_config: { image_uri: "r/a:1" },
                secrets: [],
              }),
            });
            if (response.status === 201) confirmed.push(name);
          } catch {
            return; // The emulator is gone.
          }
          if (!killed && confirmed.length >= killAfter) {
            killed = true;
            child.kill("SIGKILL");
          }
        }
      };
      await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
      await exited;
      expect(confirmed.length).toBeGreaterThanOrEqual(killAfter);
      // What the next emulator loads.
      const saved = new Set(readStateFile(path)!.deployments.map((d) => d.name));
      for (const name of confirmed) expect(saved.has(name), name).toBe(true);
    }
    // And the file is a state a new emulator starts from.
    const em = await startEmulator({ port: 0, statePath: path });
    try {
      const list = await httpRequest(`${em.url}/v2/deployments?limit=100`, {
        headers: { "X-Api-Key": "kill-test" },
      });
      expect(list.status).toBe(200);
      expect(list.json.resources.length).toBeGreaterThanOrEqual(40);
    } finally {
      await em.close();
    }
  });
});
