// Build and runtime logs through real HTTP on a manual clock: lines appear as the revision's
// stages are reached, pages and cursors in both orders, following a growing log, the
// filters, the error that ends a failed revision's log, tarball files in internal_source
// builds, request lines driven by the clock, and the usual 404/422, stats and faults.
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../test/helpers/emulator.js";
import {
  allLogs,
  buildLogsPath,
  deployLogsPath,
  type Entry,
  logPage,
  tarball,
  upload,
} from "../../test/helpers/logs.js";
import { type RevisionStatus, revisionStages } from "../model/enums.js";
import { LogPage } from "../model/responses.js";
import { endOfArchive, entryHeader } from "../upload/tar.js";
import { FAILABLE_STAGES } from "./controls.js";
import { REQUEST_PERIOD_MS } from "./log-lines.js";

afterEach(closeTestEmulators);

/** `header` with some fields overwritten (offset -> text) and its checksum made right again. */
function withChecksum(header: Buffer, fields: Record<number, string>): Buffer {
  const block = Buffer.from(header.subarray(0, 512));
  for (const [offset, value] of Object.entries(fields)) block.write(value, Number(offset), "latin1");
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return block;
}

const padTo512 = (text: string) => Buffer.concat([Buffer.from(text), Buffer.alloc(512 - text.length)]);

const STAGE = 1000;
const ms = (entry: Entry) => Date.parse(entry.timestamp);

/** A gitrepo deployment with stages of STAGE ms; its first revision is created at `t0`. */
async function gitrepo(em: TestEmulator, sourceConfig: Record<string, unknown> = {}) {
  const body = em.createBody("gitrepo");
  const deployment = await em.createDeployment("gitrepo", undefined, {
    source_config: { ...(body.source_config as object), ...sourceConfig },
  });
  return { deployment, revisionId: deployment.latest_revision_id as string, t0: em.clock.now() };
}

describe("build logs", () => {
  it("grow as the revision moves through its stages: each line once its time has come", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const { deployment, revisionId, t0 } = await gitrepo(em, { build_command: "npm run build" });
    const path = buildLogsPath(deployment.id, revisionId);

    // What the whole log will be, read from a second emulator-independent point: the end.
    const seen: Entry[][] = [];
    for (let at = 0; at <= 5 * STAGE; at += STAGE / 8) {
      em.clock.set(t0 + at);
      seen.push((await logPage(em, path, { order: "asc", limit: 1000 })).logs);
    }
    const final = seen.at(-1)!;
    for (const [step, page] of seen.entries()) {
      const now = t0 + (step * STAGE) / 8;
      // Exactly the entries whose time has come: a prefix of the final log.
      expect(page).toEqual(final.filter((entry) => ms(entry) <= now));
    }
    // Nothing before AWAITING_BUILD (stage 3 of the plan, at 2 stages in).
    expect(seen[15]).toEqual([]);
    expect(seen[16]!.length).toBeGreaterThan(0);
    // A stage's lines spread over its duration.
    const fetching = final.filter((e) => ms(e) >= t0 + 2 * STAGE && ms(e) < t0 + 3 * STAGE);
    expect(new Set(fetching.map(ms)).size).toBe(fetching.length);

    const text = final.map((e) => e.message).join("\n");
    const revision = (await em.get(`/v2/deployments/${deployment.id}/revisions/${revisionId}`)).json;
    const sha = revision.source_revision_config.repo_commit_sha as string;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(text).toContain(`Fetching https://github.com/example/agent at main`);
    expect(text).toContain(`Checked out main at commit ${sha}`);
    expect(text).toContain("No install_command set: detected package-lock.json");
    expect(text).toContain("Running: npm ci");
    expect(text).toContain("Running build command: npm run build");
    expect(text).toMatch(/Pushed registry\.emulator\.invalid\/\S+ \(digest sha256:[0-9a-f]{64}\)/);
    expect(final.at(-1)).toMatchObject({ level: "INFO", message: "Build succeeded in 2.0 s" });
    expect(ms(final.at(-1)!)).toBe(t0 + 4 * STAGE);
    expect(new Set(final.map((e) => e.id)).size).toBe(final.length);
    expect(LogPage.safeParse({ logs: final, next_offset: null }).success).toBe(true);
  });

  it("use the install_command when set, and keep the commands the revision was built with", async () => {
    const em = await startTestEmulator();
    const { deployment, revisionId } = await gitrepo(em, { install_command: "pnpm install --prod" });
    const before = await logPage(em, buildLogsPath(deployment.id, revisionId), { order: "asc" });
    expect(before.logs.map((e) => e.message)).toContain("Running: pnpm install --prod");
    // Changing the command later is no rewrite of history.
    expect(
      (await em.patch(`/v2/deployments/${deployment.id}`, { source_config: { install_command: "yarn" } }))
        .status,
    ).toBe(200);
    expect(await logPage(em, buildLogsPath(deployment.id, revisionId), { order: "asc" })).toEqual(before);
  });

  it("container sources are not built: an empty build log", async () => {
    const em = await startTestEmulator();
    for (const source of ["internal_container", "external_container"] as const) {
      const deployment = await em.createDeployment(source);
      const page = await logPage(em, buildLogsPath(deployment.id, deployment.latest_revision_id));
      expect(page).toEqual({ logs: [], next_offset: null });
    }
  });

  it("internal_source: unpacking the uploaded tarball names its files and detects the package manager", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    // The first revision has no tarball yet: the log says so.
    const first = await logPage(em, buildLogsPath(deployment.id, deployment.latest_revision_id), {
      order: "asc",
    });
    expect(first.logs.map((e) => e.message)).toContain(
      "No source tarball (source_tarball_path is null): building an empty source directory",
    );

    const files: Record<string, string> = {
      "agent.json": '{"graphs": {"agent": "./src/graph.ts:graph"}}',
      "package.json": "{}",
      "package-lock.json": "{}",
      "src/graph.ts": "export const graph = 1;\n",
    };
    for (let i = 0; i < 30; i++)
      files[`src/tools/tool-${String(i).padStart(2, "0")}.ts`] = `export const t${i} = ${i};\n`;
    const objectPath = await upload(em, deployment.id, tarball(files));
    const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { source_tarball_path: objectPath },
    });
    const messages = (
      await logPage(em, buildLogsPath(deployment.id, patched.json.latest_revision_id), { order: "asc" })
    ).logs.map((e) => e.message);
    expect(messages.some((m) => m.startsWith(`Downloading source tarball ${objectPath}, sha256 `))).toBe(
      true,
    );
    const bytes = Object.values(files).reduce((sum, content) => sum + Buffer.byteLength(content), 0);
    expect(messages).toContain(`Unpacking source tarball: 34 files, ${bytes} bytes`);
    for (const name of ["agent.json", "src/graph.ts"]) {
      expect(messages).toContain(`  ${name} (${Buffer.byteLength(files[name]!)} bytes)`);
    }
    expect(messages).toContain("  ... and 14 other files");
    expect(messages).toContain("No install_command set: detected package-lock.json");
    expect(messages).toContain("Reading agent config agent.json");
    expect(messages.at(-1)).toMatch(/^Build succeeded/);
  });

  it("internal_source: a tarball that is not one is said so, and the build goes on", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const objectPath = await upload(em, deployment.id, gzipSync(Buffer.from("not a tar archive at all")));
    const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { source_tarball_path: objectPath },
    });
    const page = await logPage(em, buildLogsPath(deployment.id, patched.json.latest_revision_id), {
      order: "asc",
    });
    expect(
      page.logs.some(
        (e) => e.level === "WARNING" && e.message.startsWith("Could not read the whole tarball"),
      ),
    ).toBe(true);
    expect(page.logs.at(-1)!.message).toMatch(/^Build succeeded/);
  });

  it("internal_source: a hostile tarball neither hangs the emulator nor fills its memory", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_source");
    const file = (path: string, size: number) => entryHeader({ path, type: "file", mode: 0o644, size });
    const cases: [string, Buffer, RegExp][] = [
      // A PAX record that says it is 0 bytes long: a reader that trusts it never moves on.
      [
        "a PAX record of no length",
        Buffer.concat([
          withChecksum(file("pax", 512), { 156: "x" }),
          padTo512("0 path=x\n"),
          file("a", 0),
          endOfArchive(),
        ]),
        /^Unpacking source tarball: 1 file, 0 bytes$/,
      ],
      // A negative size would move the reader backwards, forever.
      [
        "a negative size",
        Buffer.concat([withChecksum(file("neg", 0), { 124: "-0001000000 " }), endOfArchive()]),
        /^Could not read the whole tarball: bad entry size at offset 0$/,
      ],
      // 90 MiB of zeros in a ~90 KiB upload: only the first 32 MiB are ever inflated.
      [
        "a gzip bomb",
        Buffer.concat([file("huge.bin", 90 * 1024 * 1024), Buffer.alloc(90 * 1024 * 1024), endOfArchive()]),
        /^Unpacking source tarball: at least 0 files, 0 bytes$/,
      ],
    ];
    for (const [what, tar, unpacking] of cases) {
      const objectPath = await upload(em, deployment.id, gzipSync(tar));
      const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
        source_revision_config: { source_tarball_path: objectPath },
      });
      const messages = (
        await logPage(em, buildLogsPath(deployment.id, patched.json.latest_revision_id), { order: "asc" })
      ).logs.map((e) => e.message);
      expect(
        messages.some((m) => unpacking.test(m)),
        `${what}: ${messages.join("\n")}`,
      ).toBe(true);
      expect(messages.at(-1)).toMatch(/^Build succeeded/);
    }
  });

  it("a revision stopped by a newer one ends its build log with a warning naming it", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const { deployment, revisionId } = await gitrepo(em);
    em.advance(3 * STAGE + 500); // BUILDING
    const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { repo_ref: "release" },
    });
    em.advance(10 * STAGE);
    const page = await logPage(em, buildLogsPath(deployment.id, revisionId), { order: "asc" });
    expect(page.logs.at(-1)).toMatchObject({
      level: "WARNING",
      message: `Build interrupted: revision ${patched.json.latest_revision_id} of the deployment was started`,
    });
    expect(page.logs.map((e) => e.message).join("\n")).not.toContain("Build succeeded");
  });
});

describe("the error that fails a revision ends its log", () => {
  /** Which log holds the error for a failure in each stage. */
  const logsOf = (stage: RevisionStatus) =>
    stage === "CREATING" || stage === "QUEUED"
      ? { build: true, deploy: true, status: "CREATE_FAILED" }
      : stage === "AWAITING_BUILD" || stage === "BUILDING"
        ? { build: true, deploy: false, status: "BUILD_FAILED" }
        : { build: false, deploy: true, status: "DEPLOY_FAILED" };

  for (const stage of FAILABLE_STAGES) {
    for (const message of [undefined, `custom failure at ${stage}: exit status 3`]) {
      it(`${stage}, ${message ? "with" : "without"} a message`, async () => {
        const em = await startTestEmulator({ stageMs: STAGE });
        const fail = await em.post(
          "/_emulator/revisions/fail-next",
          message ? { stage, message } : { stage },
        );
        expect(fail.status).toBe(201);
        expect(fail.json.message).toBe(message ?? null);
        const { deployment, revisionId } = await gitrepo(em, { build_command: "npm run build" });
        em.advance(10 * STAGE);
        const revision = (await em.get(`/v2/deployments/${deployment.id}/revisions/${revisionId}`)).json;
        const expected = logsOf(stage);
        expect(revision.status).toBe(expected.status);

        const build = (await logPage(em, buildLogsPath(deployment.id, revisionId), { order: "asc" })).logs;
        const deploy = (await logPage(em, deployLogsPath(deployment.id, revisionId), { order: "asc" })).logs;
        for (const [log, holds] of [
          [build, expected.build],
          [deploy, expected.deploy],
        ] as const) {
          if (!holds) {
            expect(log.some((e) => e.level === "ERROR")).toBe(false);
            continue;
          }
          const last = log.at(-1)!;
          expect(last.level).toBe("ERROR");
          // It fails at the end of the stage: when the revision's status turned.
          expect(last.timestamp).toBe(revision.updated_at);
          if (message) expect(last.message).toBe(message);
          else expect(last.message).toMatch(DEFAULT_MESSAGES[stage]!);
          // The step that failed comes right before it, and nothing says it went well.
          const before = log.at(-2)?.message;
          if (STEP_THAT_FAILED[stage]) expect(before).toMatch(STEP_THAT_FAILED[stage]!);
          else if (stage === "CREATING" || stage === "QUEUED") expect(log).toHaveLength(1);
          const failedStage = log.filter(
            (e) => Date.parse(e.timestamp) >= Date.parse(last.timestamp) - STAGE,
          );
          for (const e of failedStage)
            expect(e.message).not.toMatch(/^(Pushed|Pulled|Checked out|Build command finished)/);
        }
        if (stage === "AWAITING_BUILD" || stage === "BUILDING") expect(deploy).toEqual([]);
        if (stage === "AWAITING_DEPLOY" || stage === "DEPLOYING")
          expect(build.at(-1)!.message).toMatch(/^Build succeeded/);
      });
    }
  }

  it("the fail control on an existing revision takes a message too; bad messages are refused", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const deployment = await em.createDeployment("internal_container");
    const revisionId = deployment.latest_revision_id;
    const path = `/_emulator/deployments/${deployment.id}/revisions/${revisionId}/fail`;
    for (const message of ["", "   ", 42, "x".repeat(2001), ["a"]]) {
      const refused = await em.post(path, { stage: "DEPLOYING", message });
      expect(refused.status, JSON.stringify(message)).toBe(422);
      expect(refused.json.detail[0].loc).toEqual(["body", "message"]);
      expect((await em.post("/_emulator/revisions/fail-next", { stage: "QUEUED", message })).status).toBe(
        422,
      );
    }
    const message = "Deploy failed: OOMKilled (memory limit 512Mi)";
    expect((await em.post(path, { stage: "DEPLOYING", message })).status).toBe(200);
    em.advance(10 * STAGE);
    const log = (await logPage(em, deployLogsPath(deployment.id), { order: "desc", limit: 1 })).logs;
    expect(log).toMatchObject([{ level: "ERROR", message }]);
    // In-process, the same.
    const other = await em.createDeployment("internal_container");
    em.emulator.failRevision(other.id, other.latest_revision_id, "AWAITING_DEPLOY", "no pull");
    em.advance(10 * STAGE);
    expect((await logPage(em, deployLogsPath(other.id), { order: "desc", limit: 1 })).logs[0]!.message).toBe(
      "no pull",
    );
  });
});

/** The last line before the error of a revision that fails in each stage (build_command set). */
const STEP_THAT_FAILED: Partial<Record<RevisionStatus, RegExp>> = {
  AWAITING_BUILD: /^git fetch --depth 1 origin /,
  BUILDING: /^Running build command: npm run build$/,
  AWAITING_DEPLOY: /^Pulling image /,
  DEPLOYING: /^Waiting for the health check/,
};

/** The default error of each stage, for the gitrepo deployment above (build_command set). */
const DEFAULT_MESSAGES: Partial<Record<RevisionStatus, RegExp>> = {
  CREATING: /^Revision \S+ could not be created: resource quota exceeded/,
  QUEUED: /^Revision \S+ could not be scheduled/,
  AWAITING_BUILD:
    /^fatal: could not read from remote repository https:\/\/github\.com\/example\/agent: couldn't find remote ref main$/,
  BUILDING: /^Build failed: 'npm run build' exited with code 2: src\/agent\.ts\(14,7\): error TS2304/,
  AWAITING_DEPLOY: /^Deploy failed: could not pull image registry\.emulator\.invalid\/\S+: manifest unknown$/,
  DEPLOYING: /^Deploy failed: the server did not become healthy/,
};

describe("runtime logs", () => {
  it("start-up lines, then a request line every few seconds of emulator time", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const deployment = await em.createDeployment("internal_container");
    const revisionId = deployment.latest_revision_id;
    const path = deployLogsPath(deployment.id, revisionId);
    expect((await logPage(em, path)).logs).toEqual([]);
    em.advance(2 * STAGE); // AWAITING_DEPLOY
    expect((await logPage(em, path, { order: "asc" })).logs[0]!.message).toBe(
      `Deploying revision ${revisionId} of ${deployment.name}`,
    );
    em.advance(2 * STAGE); // DEPLOYED
    const deployedAt = em.clock.now();
    const atStart = (await logPage(em, path, { order: "asc" })).logs;
    expect(atStart.map((e) => e.message)).toEqual([
      `Deploying revision ${revisionId} of ${deployment.name}`,
      "Pulling image registry.example.com/agent:1.0.0",
      "Pulled image registry.example.com/agent:1.0.0",
      expect.stringMatching(/^Starting container dep-\d+-[0-9a-f]{8}$/),
      "Starting agent server",
      "Server listening on 0.0.0.0:8000",
      "Waiting for the health check (GET /ok)",
      `Health check passed: revision ${revisionId} is serving traffic`,
    ]);

    for (const minutes of [1, 5, 60]) {
      em.clock.set(deployedAt + minutes * 60_000);
      const requests = (await allLogs(em, path, { limit: 1000 })).entries.filter(
        (e) => !atStart.some((s) => s.id === e.id),
      );
      expect(requests).toHaveLength((minutes * 60_000) / REQUEST_PERIOD_MS);
      expect(ms(requests[0]!)).toBe(em.clock.now());
      expect(requests.some((e) => e.message === "GET /ok 200 1ms")).toBe(true);
    }
    // The deployment's log is its revisions' together.
    expect(await allLogs(em, deployLogsPath(deployment.id), { limit: 1000 })).toEqual(
      await allLogs(em, path, { limit: 1000 }),
    );
  });

  it("a newer revision takes over: the older one shuts down and its requests stop", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const deployment = await em.createDeployment("internal_container");
    const first = deployment.latest_revision_id;
    em.advance(4 * STAGE + 60_000);
    const patched = await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
    });
    const second = patched.json.latest_revision_id;
    const replacedAt = em.clock.now() + 4 * STAGE;
    em.advance(4 * STAGE + 30_000);

    const old = (await allLogs(em, deployLogsPath(deployment.id, first), { order: "asc" })).entries;
    expect(old.slice(-2).map((e) => e.message)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Revision ${second} is now serving: stopping container dep-\\d+-${first.slice(0, 8)} \\(SIGTERM\\)$`,
        ),
      ),
      "Server stopped",
    ]);
    expect(ms(old.at(-1)!)).toBe(replacedAt);
    expect(old.every((e) => ms(e) <= replacedAt)).toBe(true);

    const all = (await allLogs(em, deployLogsPath(deployment.id), { order: "asc", limit: 50 })).entries;
    const fresh = (await allLogs(em, deployLogsPath(deployment.id, second), { order: "asc" })).entries;
    expect(all).toHaveLength(old.length + fresh.length);
    expect(new Set(all.map((e) => e.id))).toEqual(new Set([...old, ...fresh].map((e) => e.id)));
    expect(fresh.at(-1)!.timestamp).toBe(all.at(-1)!.timestamp);
  });
});

describe("paging and following", () => {
  /** A deployment with a long runtime log: 2 revisions, 10 minutes of requests. */
  async function busy(em: TestEmulator) {
    const deployment = await em.createDeployment("internal_container");
    em.advance(5 * 60_000);
    await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
    });
    em.advance(5 * 60_000);
    return deployLogsPath(deployment.id);
  }

  it("limit, offset and next_offset walk every entry once, in both orders", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const path = await busy(em);
    const whole = await logPage(em, path, { order: "asc", limit: 1000 });
    // Oldest first, the end of the log has a cursor too: what comes after it, nothing yet.
    expect(await logPage(em, path, { order: "asc", limit: 1000, offset: whole.next_offset })).toEqual({
      logs: [],
      next_offset: whole.next_offset,
    });
    expect(whole.logs.length).toBeGreaterThan(100);
    const keys = whole.logs.map(ms);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));

    for (const limit of [1, 7, 100]) {
      const asc = await allLogs(em, path, { order: "asc", limit }, 1000);
      expect(asc.entries).toEqual(whole.logs);
      // Oldest first the end is the first page shorter than asked (an empty one after full pages).
      expect(asc.pages).toBe(Math.floor(whole.logs.length / limit) + 1);
      const desc = await allLogs(em, path, { order: "desc", limit }, 1000);
      expect(desc.entries).toEqual([...whole.logs].reverse());
      // Newest first, the last page says there is no more, even when it is full.
      expect(desc.pages).toBe(Math.ceil(whole.logs.length / limit));
    }
    // The default: newest first, 100 entries, and an offset to go on.
    const first = await logPage(em, path);
    expect(first.logs).toEqual([...whole.logs].reverse().slice(0, 100));
    expect(first.next_offset).toEqual(expect.any(String));
    // An offset is a position: it may be used with the other order to go back.
    const back = await logPage(em, path, { order: "asc", offset: first.next_offset, limit: 1000 });
    expect(back.logs).toEqual(whole.logs.slice(whole.logs.length - 100 + 1));
  });

  it("follows a growing log with order asc and the last timestamp as start_time; no id twice, none missed", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const deployment = await em.createDeployment("gitrepo");
    const revisionPath = buildLogsPath(deployment.id, deployment.latest_revision_id);
    const runtimePath = deployLogsPath(deployment.id);
    for (const path of [revisionPath, runtimePath]) {
      const seen = new Map<string, Entry>();
      let startTime: string | undefined;
      // As the public client does: poll, drop ids already seen, move start_time up.
      for (let poll = 0; poll < 40; poll++) {
        const page = await logPage(em, path, {
          order: "asc",
          limit: 5,
          ...(startTime ? { start_time: startTime } : {}),
        });
        const fresh = page.logs.filter((e) => !seen.has(e.id));
        for (const entry of fresh) seen.set(entry.id, entry);
        if (page.logs.length) startTime = page.logs.at(-1)!.timestamp;
        // The client is behind while pages come back full; once it has caught up, time moves.
        if (page.logs.length < 5) em.advance(777);
      }
      const final = (await allLogs(em, path, { order: "asc", limit: 1000, end_time: em.clock.now() }))
        .entries;
      const followed = [...seen.values()];
      expect(followed).toEqual(final.filter((e) => seen.has(e.id)));
      // Nothing was missed up to where the follower got.
      const reached = ms(followed.at(-1)!);
      expect(followed).toEqual(final.filter((e) => ms(e) <= reached));
    }
  });

  it("streams a build as both public clients do, repeating the call with the last next_offset: every line once", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const deployment = await em.createDeployment("gitrepo");
    const path = buildLogsPath(deployment.id, deployment.latest_revision_id);
    const received: Entry[] = [];
    let cursor: string | null = null;
    // Their loop: {order: asc, limit: 50, offset: cursor}, and the cursor kept when none comes.
    for (let poll = 0; poll < 60; poll++) {
      const page = await logPage(em, path, {
        order: "asc",
        limit: 50,
        ...(cursor ? { offset: cursor } : {}),
      });
      received.push(...page.logs);
      cursor = page.next_offset ?? cursor;
      em.advance(STAGE / 4);
    }
    const whole = await logPage(em, path, { order: "asc", limit: 1000 });
    expect(whole.logs.length).toBeGreaterThan(10);
    expect(received.map((e) => e.id)).toEqual(whole.logs.map((e) => e.id));
    expect(new Set(received.map((e) => e.id)).size).toBe(received.length);
  });

  it("an offset taken before the log grew goes on with the entries added since", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const deployment = await em.createDeployment("internal_container");
    const path = deployLogsPath(deployment.id);
    em.advance(4 * STAGE + 30_000);
    const page = await logPage(em, path, { order: "asc", limit: 3 });
    const rest = await logPage(em, path, { order: "asc", limit: 1000, offset: page.next_offset });
    em.advance(60_000);
    const later = await logPage(em, path, { order: "asc", limit: 1000, offset: page.next_offset });
    expect(later.logs.slice(0, rest.logs.length)).toEqual(rest.logs);
    expect(later.logs.length - rest.logs.length).toBe(60_000 / REQUEST_PERIOD_MS);
  });
});

describe("filters", () => {
  async function deployedAWhile(em: TestEmulator) {
    em.emulator.failNextRevision({ stage: "DEPLOYING", message: "CRASH: exit 137" });
    const deployment = await em.createDeployment("internal_container");
    em.advance(10 * STAGE);
    await em.patch(`/v2/deployments/${deployment.id}`, {
      source_revision_config: { image_uri: "registry.example.com/agent:2.0.0" },
    });
    em.advance(4 * STAGE + 10 * 60_000);
    return deployLogsPath(deployment.id);
  }

  it("level is at least that level; query is a case-insensitive substring; both with paging", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const path = await deployedAWhile(em);
    const whole = (await logPage(em, path, { order: "asc", limit: 1000 })).logs;
    const rank = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"];
    for (const level of rank) {
      const wanted = whole.filter((e) => rank.indexOf(e.level) >= rank.indexOf(level));
      expect((await allLogs(em, path, { order: "asc", level, limit: 4 }, 500)).entries).toEqual(wanted);
      expect(
        (await allLogs(em, path, { order: "desc", level: level.toLowerCase(), limit: 4 }, 500)).entries,
      ).toEqual([...wanted].reverse());
    }
    expect(whole.filter((e) => e.level === "ERROR").map((e) => e.message)).toEqual(["CRASH: exit 137"]);
    expect(whole.some((e) => e.level === "DEBUG")).toBe(true);
    expect(whole.some((e) => e.level === "WARNING")).toBe(true);

    for (const query of ["get /OK", "slow request", "crash", "nothing like this"]) {
      const wanted = whole.filter((e) => e.message.toLowerCase().includes(query.toLowerCase()));
      expect((await allLogs(em, path, { order: "asc", query, limit: 9 }, 500)).entries).toEqual(wanted);
    }
    const both = (await allLogs(em, path, { level: "WARNING", query: "runs/wait", limit: 3 }, 100)).entries;
    expect(both.length).toBeGreaterThan(0);
    expect(both.every((e) => e.level === "WARNING" && e.message.includes("runs/wait"))).toBe(true);
  });

  it("start_time and end_time include their bounds; ISO 8601 or epoch milliseconds", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    const path = await deployedAWhile(em);
    const whole = (await logPage(em, path, { order: "asc", limit: 1000 })).logs;
    const from = whole[20]!;
    const to = whole[60]!;
    const window = whole.filter((e) => ms(e) >= ms(from) && ms(e) <= ms(to));
    expect(window[0]).toEqual(from);
    expect(window.at(-1)).toEqual(to);
    for (const [start_time, end_time] of [
      [from.timestamp, to.timestamp],
      [ms(from), ms(to)],
      [from.timestamp.replace("Z", "+00:00"), to.timestamp.replace(".000Z", "Z")],
    ]) {
      expect((await allLogs(em, path, { order: "asc", start_time, end_time, limit: 7 })).entries).toEqual(
        window,
      );
    }
    // A time zone offset is honoured.
    const shifted = new Date(ms(from) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    expect((await logPage(em, path, { order: "asc", start_time: shifted, limit: 1 })).logs[0]).toEqual(from);
    // Entries are never later than now, whatever end_time says.
    const future = await logPage(em, path, { order: "desc", end_time: "2999-01-01T00:00:00Z", limit: 1 });
    expect(ms(future.logs[0]!)).toBeLessThanOrEqual(em.clock.now());
  });

  it("refuses bad bodies with 422 naming each field", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const path = deployLogsPath(deployment.id);
    const cases: [unknown, string[][]][] = [
      [{ limit: 0 }, [["body", "limit"]]],
      [{ limit: 1001 }, [["body", "limit"]]],
      [{ limit: "5" }, [["body", "limit"]]],
      [{ limit: 2.5 }, [["body", "limit"]]],
      [{ order: "newest" }, [["body", "order"]]],
      [{ level: "TRACE" }, [["body", "level"]]],
      [{ offset: "not-an-offset" }, [["body", "offset"]]],
      [{ offset: 10 }, [["body", "offset"]]],
      [{ query: 5 }, [["body", "query"]]],
      [{ start_time: "yesterday" }, [["body", "start_time"]]],
      [{ end_time: "2025-02-30T00:00:00Z" }, [["body", "end_time"]]],
      [{ start_time: "2025-01-02T00:00:00Z", end_time: "2025-01-01T00:00:00Z" }, [["body", "end_time"]]],
      [{ start: "2025-01-01T00:00:00Z" }, [["body", "start"]]],
      [
        { limit: -1, level: "LOUD" },
        [
          ["body", "limit"],
          ["body", "level"],
        ],
      ],
      [[1, 2], [["body"]]],
      ["text", [["body"]]],
    ];
    for (const [body, locs] of cases) {
      const response = await em.post(path, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.json.detail.map((d: { loc: string[] }) => d.loc)).toEqual(locs);
    }
    // No body, an empty one and nulls are all "everything by default".
    const plain = await em.post(path);
    expect(plain.status).toBe(200);
    for (const body of [
      {},
      { limit: null, order: null, offset: null, level: null, query: null, start_time: null },
    ]) {
      expect((await em.post(path, body)).json).toEqual(plain.json);
    }
  });
});

describe("the routes", () => {
  it("404 for another tenant's deployment, an unknown one, or a revision that is not the deployment's; 422 for a bad ID", async () => {
    const em = await startTestEmulator();
    const mine = await em.createDeployment("gitrepo");
    const other = await em.createDeployment("gitrepo");
    const unknown = "00000000-0000-4000-8000-000000000000";
    const paths = [
      buildLogsPath(mine.id, other.latest_revision_id),
      deployLogsPath(mine.id, other.latest_revision_id),
      buildLogsPath(mine.id, unknown),
      deployLogsPath(unknown),
      buildLogsPath(unknown, mine.latest_revision_id),
    ];
    for (const path of paths) {
      const response = await em.post(path, {});
      expect(response.status, path).toBe(404);
      expect(response.json.detail).toMatch(/^(Deployment|Revision) ID \S+ not found\.$/);
    }
    for (const path of [
      buildLogsPath(mine.id, mine.latest_revision_id),
      deployLogsPath(mine.id),
      deployLogsPath(mine.id, mine.latest_revision_id),
    ]) {
      expect((await em.post(path, {}, { auth: "someone-else" })).status).toBe(404);
      expect((await em.post(path, {}, { auth: false })).status).toBe(401);
    }
    expect((await em.post(deployLogsPath("nope"), {})).status).toBe(422);
    expect((await em.post(buildLogsPath(mine.id, "nope"), {})).json.detail[0].loc).toEqual([
      "path",
      "revision_id",
    ]);
    expect((await em.get(deployLogsPath(mine.id))).status).toBe(405);
  });

  it("are counted in the stats and take faults like every route", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("gitrepo");
    em.emulator.addFault({ path: "/v1/projects/*/deploy_logs", status: 503, retry_after: 1 });
    const faulted = await em.post(deployLogsPath(deployment.id), {});
    expect(faulted.status).toBe(503);
    expect(faulted.headers["retry-after"]).toBe("1");
    expect((await em.post(deployLogsPath(deployment.id), {})).status).toBe(200);
    await em.post(buildLogsPath(deployment.id, deployment.latest_revision_id), {});
    await em.post(deployLogsPath(deployment.id, deployment.latest_revision_id), {});
    expect(em.emulator.stats().requests).toMatchObject({
      "POST /v1/projects/{deployment_id}/deploy_logs": 2,
      "POST /v1/projects/{deployment_id}/revisions/{revision_id}/build_logs": 1,
      "POST /v1/projects/{deployment_id}/revisions/{revision_id}/deploy_logs": 1,
    });
  });

  it("every source's revision logs validate against the model's LogPage", async () => {
    const em = await startTestEmulator({ stageMs: STAGE });
    for (const source of [
      "gitrepo",
      "internal_source",
      "internal_container",
      "external_container",
    ] as const) {
      const deployment = await em.createDeployment(source);
      em.advance(revisionStages(source).length * STAGE + 20_000);
      for (const path of [
        buildLogsPath(deployment.id, deployment.latest_revision_id),
        deployLogsPath(deployment.id, deployment.latest_revision_id),
        deployLogsPath(deployment.id),
      ]) {
        const response = await em.post(path, {});
        expect(LogPage.safeParse(response.json).success, path).toBe(true);
      }
    }
  });
});
