// `cpctl/emulator` as a user's test suite takes it: start one, run a deploy script against it
// (here cpctl itself, in-process), act through the typed controls, close it. The package and
// its declarations are test/e2e/pack.test.ts's; the example of docs/emulator.md is
// test/docs/emulator-example.test.ts.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import { cliEnv, instantClock, runCli } from "../../test/helpers/run-cli.js";
import { type Emulator, type StartEmulatorOptions, startEmulator } from "./public.js";

const KEY = "ci-key";
const started: Emulator[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

async function start(options?: StartEmulatorOptions): Promise<Emulator> {
  const emulator = await startEmulator(options);
  started.push(emulator);
  return emulator;
}

/** The deploy script under test: cpctl, pointed at `emulator`. */
function cpctl(emulator: Emulator, args: string[], options: Parameters<typeof runCli>[1] = {}) {
  return runCli([...args, "-o", "json"], { env: cliEnv({ url: emulator.url, apiKey: KEY }), ...options });
}

const CREATE = ["deploy", "create", "--name", "agent", "--source", "external_container"];

describe("startEmulator, with the defaults made for tests", () => {
  it("runs a deploy script: a release goes live, the next one fails as told, an unhealthy one fails its check, reset empties it", async () => {
    const emulator = await start();
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator.registryUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator.registryUrl).not.toBe(emulator.url);

    // Stages of 0 ms: --wait finds the revision DEPLOYED at its first look.
    const created = await cpctl(emulator, [...CREATE, "--image-uri", "ghcr.io/acme/agent:1.0", "--wait"]);
    expect(created.code, created.stderr).toBe(0);
    const deployment = JSON.parse(created.stdout);
    expect(deployment.active_revision_id).toBe(deployment.latest_revision_id);

    const rule = await emulator.controls.failNext({
      stage: "DEPLOYING",
      deployment: deployment.id,
      message: "container exited with code 1",
    });
    expect(rule).toEqual({
      deployment_id: deployment.id,
      tenant_id: null,
      stage: "DEPLOYING",
      message: "container exited with code 1",
    });
    const failed = await cpctl(emulator, [
      "deploy",
      "patch",
      "agent",
      "--image-uri",
      "ghcr.io/acme/agent:1.1",
      "--wait",
    ]);
    expect(failed.code).toBe(5);
    expect(JSON.parse(failed.stdout).failure).toMatchObject({
      stage: "DEPLOY_FAILED",
      message: "container exited with code 1",
    });

    const marked = await emulator.controls.health(deployment.id, "failing", {
      revision: deployment.active_revision_id,
    });
    expect(marked).toEqual({
      deployment_id: deployment.id,
      revision_id: deployment.active_revision_id,
      state: "failing",
      url: deployment.source_config.custom_url,
    });
    expect((await cpctl(emulator, ["deploy", "status", "agent", "--check"])).code).toBe(7);
    await emulator.controls.health(deployment.id, "ok");
    expect((await cpctl(emulator, ["deploy", "status", "agent", "--check"])).code).toBe(0);

    await emulator.controls.reset();
    const listed = await cpctl(emulator, ["deploy", "list"]);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it("only the keys given, when apiKeys is", async () => {
    const emulator = await start({ apiKeys: [KEY] });
    expect((await cpctl(emulator, ["deploy", "list"])).code).toBe(0);
    const other = await runCli(["deploy", "list"], {
      env: cliEnv({ url: emulator.url, apiKey: "other-key" }),
    });
    expect(other.code).toBe(3);
  });

  it("close() frees the port, and a second call does nothing more", async () => {
    const emulator = await start();
    await emulator.close();
    await emulator.close();
    expect((await runCli(["deploy", "list"], { env: cliEnv({ url: emulator.url, apiKey: KEY }) })).code).toBe(
      1,
    );
  });
});

describe("the clock", () => {
  it('"manual": it starts at a fixed instant and moves only when the controls move it', async () => {
    const emulator = await start({ clock: "manual", stageMs: 1000 });
    const { clock } = emulator.controls;
    expect(await clock.now()).toEqual({
      now: "2025-01-01T00:00:00.000Z",
      now_ms: Date.parse("2025-01-01T00:00:00.000Z"),
      offset_ms: null,
    });
    const created = await cpctl(emulator, [...CREATE, "--image-uri", "ghcr.io/acme/agent:1.0"]);
    const revision = () => cpctl(emulator, ["deploy", "revisions", "agent"]);
    expect(JSON.parse((await revision()).stdout)[0].status).toBe("CREATING");
    expect((await clock.advance("2s")).now).toBe("2025-01-01T00:00:02.000Z");
    expect(JSON.parse((await revision()).stdout)[0].status).toBe("AWAITING_DEPLOY");
    expect((await clock.set(new Date("2025-01-01T00:01:00.000Z"))).now_ms).toBe(
      Date.parse("2025-01-01T00:01:00Z"),
    );
    expect(JSON.parse((await revision()).stdout)[0].status).toBe("DEPLOYED");
    expect(JSON.parse(created.stdout).name).toBe("agent");

    // A wait whose sleeps move the emulator's clock: every stage passes, none really waited.
    const waited = await cpctl(
      emulator,
      ["deploy", "patch", "agent", "--image-uri", "ghcr.io/acme/agent:2", "--wait"],
      {
        clock: instantClock(undefined, (ms) => void clock.advance(ms)),
      },
    );
    expect(waited.code, waited.stderr).toBe(0);

    const error = await failure(clock.set(Date.parse("2025-01-01T00:00:30Z")), RangeError);
    expect(error.message).toMatch(
      /^time: must be at or after the emulator's time, 2025-01-01T00:0\d:\d\d\.000Z, not 2025-01-01T00:00:30\.000Z/,
    );
  });

  it('"real" (the default): real time, plus what advance adds', async () => {
    const emulator = await start();
    const before = Date.now();
    const moved = await emulator.controls.clock.advance(60_000);
    expect(moved.offset_ms).toBe(60_000);
    expect(moved.now_ms).toBeGreaterThanOrEqual(before + 60_000);
    expect(Date.parse(moved.now)).toBe(moved.now_ms);
  });
});

describe("statePath", () => {
  it("a second emulator finds what the first left; one at a time per file", async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), "cpctl-public-")), "cp.state.json");
    const first = await start({ statePath });
    expect((await cpctl(first, [...CREATE, "--image-uri", "ghcr.io/acme/agent:1.0"])).code).toBe(0);
    const refused = await failure(startEmulator({ statePath }), Error);
    expect(refused).toMatchObject({ code: "emulator_start" });
    expect(refused.message).toMatch(/^cannot start: the state file .* is in use by another emulator/);
    await first.close();

    const second = await start({ statePath });
    expect(
      JSON.parse((await cpctl(second, ["deploy", "list"])).stdout).map((d: { name: string }) => d.name),
    ).toEqual(["agent"]);
  });
});

describe("what it refuses, it says, naming the option or argument", () => {
  it("options", async () => {
    const refusals: [StartEmulatorOptions, string][] = [
      [{ stageMs: -1 }, "stageMs: must be a whole number of milliseconds, 0 or more, not -1"],
      [{ port: 70_000 }, "port: must be a whole number from 0 to 65535 (0 picks a free port), not 70000"],
      [{ clock: "fast" as "real" }, 'clock: must be "real" or "manual", not "fast"'],
      [{ apiKeys: [""] }, "apiKeys: a key must be a non-empty string"],
      [
        { apiKeys: ["key=0a0a0a0a-0000-4000-8000-000000000001,tenant-b"] },
        'apiKeys: the tenants after "=" must be tenant IDs (UUIDs) separated by commas, not "tenant-b"',
      ],
    ];
    for (const [options, message] of refusals) {
      expect((await failure(startEmulator(options), Error)).message).toBe(message);
    }
  });

  it("controls", async () => {
    const { controls } = await start();
    const refused = async (call: Promise<unknown>) => (await failure(call, Error)).message;
    expect(await refused(controls.failNext({ stage: "BAKING" as "BUILDING" }))).toBe(
      "stage: must be one of CREATING, QUEUED, AWAITING_BUILD, BUILDING, AWAITING_DEPLOY, DEPLOYING",
    );
    expect(await refused(controls.failNext({ stage: "BUILDING", deployment: "agent" }))).toBe(
      "deployment: must be a deployment ID (a UUID)",
    );
    expect(await refused(controls.health("0a0a0a0a-0000-4000-8000-000000000001", "failing"))).toBe(
      "Deployment ID 0a0a0a0a-0000-4000-8000-000000000001 not found.",
    );
    expect(await refused(controls.health("agent", "failing"))).toBe("deployment: must be a UUID");
    expect(await refused(controls.health("0a0a0a0a-0000-4000-8000-000000000001", "sick" as "ok"))).toBe(
      'state: must be "failing" or "ok", not "sick"',
    );
    expect(await refused(controls.clock.advance("soon"))).toBe(
      'by: must be milliseconds or a duration such as "90s" or "15m", not "soon"',
    );
    expect(await refused(controls.clock.advance(-1))).toBe(
      "by: must be an integer number of milliseconds, 0 or more (time never runs backwards)",
    );
  });
});
