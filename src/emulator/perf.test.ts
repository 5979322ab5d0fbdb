// The request path stays lean: >= 2,000 list requests/s over 50 keep-alive connections on
// loopback. The server runs in a child process so the test's own HTTP client does not share
// its thread.
//
// What is asserted is the server's capacity: CPU time it spends per request (user + system,
// from /proc), turned into requests per second for one core. Wall-clock throughput depends on
// what else the machine runs (vitest runs other test files in parallel); CPU time per request
// does not, so the test is free of that luck. Where /proc is missing, wall-clock is used.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, expect, it } from "vitest";

let child: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), "cpctl-emulator-perf-"));
afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

it("answers >= 2,000 list requests/s with 50 connections", async () => {
  const entry = join(dir, "entry.mjs");
  await build({
    stdin: {
      contents: [
        'import { startEmulator } from "./server.js";',
        "const em = await startEmulator({ port: 0, stageMs: 0 });",
        "process.stdout.write('listening on ' + em.url + '\\n');",
      ].join("\n"),
      resolveDir: dirname(fileURLToPath(import.meta.url)),
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: entry,
    logLevel: "silent",
  });
  child = spawn(process.execPath, [entry], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve) => {
    let out = "";
    child!.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = /^listening on (\S+)\n/.exec(out);
      if (match) resolve(match[1]!);
    });
  });

  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const request = (method: string, path: string, body?: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${url}${path}`,
        { method, agent, headers: { "X-Api-Key": "perf", "Content-Type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  for (let i = 0; i < 20; i++) {
    const body = {
      name: `perf-${i}`,
      source: "internal_container",
      source_config: {},
      source_revision_config: { image_uri: "r/a:1" },
      secrets: [],
    };
    expect(await request("POST", "/v2/deployments", JSON.stringify(body))).toBe(201);
  }
  const statFile = `/proc/${child.pid}/stat`;
  /** The child's CPU time (user + system) in ms; clock ticks are 10 ms on Linux. */
  const cpuMs = () => {
    const fields = readFileSync(statFile, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  // Warm up (JIT, connections), then measure.
  const run = async (total: number) => {
    let next = 0;
    const worker = async () => {
      while (next < total) {
        next++;
        expect(await request("GET", "/v2/deployments?limit=20")).toBe(200);
      }
    };
    const cpuBefore = existsSync(statFile) ? cpuMs() : 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: 50 }, worker));
    const wallRate = total / ((performance.now() - started) / 1000);
    const cpuRate = existsSync(statFile) ? total / (Math.max(10, cpuMs() - cpuBefore) / 1000) : wallRate;
    return { wallRate, cpuRate };
  };
  await run(2000);
  const { wallRate, cpuRate } = await run(4000);
  agent.destroy();
  console.log(
    `emulator list: ${Math.round(wallRate)} requests/s measured, ${Math.round(cpuRate)} requests/s per core of server CPU`,
  );
  expect(cpuRate).toBeGreaterThanOrEqual(2000);
});
