// `deploy push --image-archive` with the built binary against the built emulator, as users run
// them: the emulator names its registry at start-up and in its health answer, and an image
// saved to a file is shipped and deployed with no daemon.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { makeStandIns } from "../helpers/engine-standin.js";
import { startServer } from "../helpers/http-server.js";
import { dockerArchive, makeTestImage } from "../helpers/images.js";
import { freshDir } from "../helpers/run-cli.js";
import { type SpawnedEmulator, spawnEmulator } from "../helpers/spawn-emulator.js";

const bin = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));
const baseEnv = { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests", CI: "true" };

let emulator: SpawnedEmulator;

beforeAll(async () => {
  emulator = await spawnEmulator(bin, ["--stage-ms", "5"], baseEnv);
});

afterAll(async () => {
  expect(await emulator.stop(), emulator.stderr()).toBe(0);
});

describe("the built cpctl ships an image", () => {
  it("the emulator says where its registry is; push --image-archive deploys the image by digest", async () => {
    const health = await fetch(`${emulator.url}/_emulator/health`);
    const { registry, agents } = (await health.json()) as { registry: string; agents: string };
    expect(registry).toMatch(/^127\.0\.0\.1:\d+$/);
    // The second line at start-up, right after `listening on`; then the agent servers'.
    expect(emulator.startOutput).toBe(
      `listening on ${emulator.url}\nregistry listening on http://${registry}\nagent servers listening on ${agents}\n`,
    );

    const file = join(freshDir("e2e-image"), "image.tar");
    writeFileSync(file, dockerArchive(makeTestImage("e2e")));
    const push = await execa(
      process.execPath,
      [
        bin,
        "deploy",
        "push",
        "--image-archive",
        file,
        "--name",
        "e2e-image",
        "-o",
        "json",
        "--interval",
        "100ms",
      ],
      {
        env: { ...baseEnv, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "e2e-key-1234" },
        extendEnv: false,
        reject: false,
        timeout: 30_000,
      },
    );
    expect(push.exitCode, push.stderr).toBe(0);
    const result = JSON.parse(push.stdout);
    expect(result).toMatchObject({ result: "deployed", created: true });
    expect(result.image_uri).toMatch(
      new RegExp(`^${registry}/deployments/[0-9a-f-]{36}/e2e-image@sha256:[a-f0-9]{64}$`),
    );
    expect(push.stderr).toMatch(/^3\. Pushed /m);
    expect(push.stderr).not.toContain("cpr1.");
  });
});

/** A control plane that takes requests and never answers: a run waits there, its files held. */
async function silentControlPlane() {
  const waiting: (() => void)[] = [];
  const server = await startServer(() => waiting.shift()?.());
  onTestFinished(() => server.close());
  return { url: server.url, nextRequest: () => new Promise<void>((resolve) => waiting.push(resolve)) };
}

function startCpctl(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...baseEnv, CPCTL_API_KEY: "e2e-key-1234", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
}

describe("kill -9 of the built cpctl during an image push", () => {
  it("the next run removes the temporary files a killed run left, never those of a run still going", async () => {
    // These runs' temporary directory is theirs alone (other tests' runs share the suite's).
    const tmp = freshDir("e2e-tmp");
    const file = join(freshDir("e2e-image"), "image.tar");
    writeFileSync(file, dockerArchive(makeTestImage("killed")));
    const silent = await silentControlPlane();
    const imageDirs = () => readdirSync(tmp).filter((name) => name.startsWith("cpctl-image-"));
    const push = ["deploy", "push", "--image-archive", file, "--name", "killed"];

    // Killed once its first request is out: the archive read, its layers compressed on disk.
    const asked = silent.nextRequest();
    const killed = startCpctl(push, { TMPDIR: tmp, CPCTL_BASE_URL: silent.url });
    await asked;
    await killHard(killed);
    const left = imageDirs();
    expect(left).toHaveLength(1);

    // Another run, still going (waiting on the silent control plane).
    const askedAgain = silent.nextRequest();
    const running = startCpctl(push, { TMPDIR: tmp, CPCTL_BASE_URL: silent.url });
    await askedAgain;
    const live = imageDirs().filter((name) => !left.includes(name));
    expect(live).toHaveLength(1);

    const next = await execa(process.execPath, [bin, ...push, "--dry-run"], {
      env: { ...baseEnv, TMPDIR: tmp, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "e2e-key-1234" },
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(imageDirs()).toEqual(live);

    await killHard(running);
    const last = await execa(process.execPath, [bin, ...push, "--dry-run"], {
      env: { ...baseEnv, TMPDIR: tmp, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "e2e-key-1234" },
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    });
    expect(last.exitCode, last.stderr).toBe(0);
    expect(imageDirs()).toEqual([]);
  });
});

interface WatchedEngine {
  pid: number;
  /** Settles when the engine process is gone (the kernel closed its connection). */
  gone: Promise<void>;
}

/** Where hanging stand-in engines say they started (STANDIN_NOTIFY_PORT), one connection each. */
async function engineWatch() {
  const waiting: ((engine: WatchedEngine) => void)[] = [];
  const sockets: Socket[] = [];
  const pids: number[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const gone = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.setEncoding("utf8");
    let text = "";
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (!text.includes("\n")) return;
      const pid = Number(text.trim());
      pids.push(pid);
      waiting.shift()?.({ pid, gone });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  onTestFinished(() => {
    // An engine left running (the failure this looks for) is ended here, not left behind.
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return {
    port: String((server.address() as { port: number }).port),
    next: () => new Promise<WatchedEngine>((resolve) => waiting.push(resolve)),
  };
}

/** `gone`, or a failure naming the engine still running after `ms`. */
function endsWithin(engine: WatchedEngine, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the engine (PID ${engine.pid}) still runs ${ms} ms after cpctl was killed`)),
      ms,
    );
  });
  return Promise.race([engine.gone, late]).finally(() => clearTimeout(timer));
}

describe("kill -9 of the built cpctl during an --image push", () => {
  it("the engine ends with cpctl; the next run removes the login directory and its token, not a live run's", async () => {
    const tmp = freshDir("e2e-tmp");
    const standIns = makeStandIns(makeTestImage("orphan"));
    const engines = await engineWatch();
    const env = {
      ...standIns.env,
      TMPDIR: tmp,
      CPCTL_BASE_URL: emulator.url,
      STANDIN_HANG_PUSH: "1",
      STANDIN_NOTIFY_PORT: engines.port,
    };
    const logins = () => readdirSync(tmp).filter((name) => name.startsWith("cpctl-registry-login-"));
    const push = (name: string) => ["deploy", "push", "--image", "my-agent:dev", "--name", name];

    const pushing = engines.next();
    const killed = startCpctl(push("orphan"), env);
    const engine = await pushing;
    await killHard(killed);
    await endsWithin(engine, 15_000);
    // The private config the killed run logged in with: the token is in it, nothing removed it.
    const left = logins();
    expect(left).toHaveLength(1);
    expect(readFileSync(join(tmp, left[0]!, "config.json"), "utf8")).toContain('"auth"');

    const pushingAgain = engines.next();
    const running = startCpctl(push("orphan-2"), env);
    const liveEngine = await pushingAgain;
    const live = logins().filter((name) => !left.includes(name));
    expect(live).toHaveLength(1);

    const next = await execa(process.execPath, [bin, ...push("orphan"), "--dry-run"], {
      env: { ...baseEnv, ...env, CPCTL_API_KEY: "e2e-key-1234", STANDIN_HANG_PUSH: "" },
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(logins()).toEqual(live);

    await killHard(running);
    await endsWithin(liveEngine, 15_000);
  });
});
