// Shared pieces of the reliability tests: servers that misbehave on purpose, waiting for a
// state by event-loop turns (never by sleeping), and the checks every failure must pass.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { RequestEvent } from "../../src/emulator/server.js";
import type { TestEmulator } from "../helpers/emulator.js";
import { type CliResult, type RunCliOptions, runCli } from "../helpers/run-cli.js";

/** A stack trace line, as Node prints them. */
export const STACK_LINE = /\n\s+at /;

/**
 * What any failure must look like: no stack trace, no HTML page, no raw JSON body dump, and
 * nothing but the result on stdout. Returns the JSON error object when stderr holds one.
 */
export function expectCleanOutput(result: CliResult): void {
  const all = `${result.stdout}\n${result.stderr}`;
  expect(all, "a stack trace").not.toMatch(STACK_LINE);
  expect(all, "an HTML dump").not.toMatch(/<html|<!DOCTYPE|<body|<center>/i);
  expect(result.stderr, "an internal error").not.toContain("internal error");
}

/** The `{"error": {...}}` object of -o json mode (the last line of stderr). */
export function jsonError(stderr: string): {
  code: string;
  status: number | null;
  message: string;
  details: unknown;
} {
  const last = stderr.trim().split("\n").at(-1) ?? "";
  return JSON.parse(last).error;
}

/**
 * The first request event of the emulator that matches (see RunningEmulator.observe): the
 * moment a request arrives, or the moment its work is done. Listen before acting.
 */
export function emulatorEvent(
  em: TestEmulator,
  match: (event: RequestEvent) => boolean,
): Promise<RequestEvent> {
  return new Promise((resolve) => {
    const stop = em.emulator.observe((event) => {
      if (!match(event)) return;
      stop();
      resolve(event);
    });
  });
}

/**
 * Runs the CLI in-process and presses Ctrl-C (aborts its signal) at `moment`: a state the
 * caller started listening for before the run, such as an emulatorEvent.
 */
export async function ctrlCAt(
  moment: Promise<unknown>,
  args: string[],
  options: Omit<RunCliOptions, "signal">,
): Promise<CliResult> {
  const controller = new AbortController();
  const running = runCli(args, { ...options, signal: controller.signal });
  await moment;
  controller.abort();
  return running;
}

/** Resolves once the text a child process wrote to `stream` matches; rejects if it exits first. */
export function output(
  child: ChildProcess,
  stream: "stdout" | "stderr",
  pattern: RegExp,
  text: () => string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(text())) return;
      child[stream]!.off("data", check);
      child.off("exit", onExit);
      resolve();
    };
    const onExit = (code: number | null) =>
      reject(new Error(`the process exited (${code}) before printing ${pattern}: ${text()}`));
    // Listeners run in order: the caller's collector (added at spawn) has the chunk already.
    child[stream]!.on("data", check);
    child.once("exit", onExit);
    check();
  });
}

/** Deployments of the emulator's test tenant, straight from the API (all pages). */
// biome-ignore lint/suspicious/noExplicitAny: deployments are checked field by field.
export async function allDeployments(em: TestEmulator): Promise<any[]> {
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const out: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await em.get(`/v2/deployments?limit=100&offset=${offset}`);
    expect(page.status).toBe(200);
    out.push(...page.json.resources);
    if (page.json.resources.length < 100) return out;
  }
}

/** Requests the emulator received for one route ("POST /v2/deployments"). */
export function sent(em: TestEmulator, route: string): number {
  return em.emulator.stats().requests[route] ?? 0;
}

export type HungMode =
  /** Accepts the connection, reads the request, never answers. */
  | "silent"
  /** Sends the status line and headers (a body of 100 bytes announced), then nothing. */
  | "headers-then-stall"
  /** Sends the headers and half of the announced JSON body, then nothing. */
  | "half-body-then-stall";

export interface HungServer {
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Requests whose head arrived, per "METHOD /path". */
  requests(): string[];
  /** Resolves once `count` requests have arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A raw TCP server that speaks just enough HTTP to hang a client in the chosen way. */
export async function hungServer(mode: HungMode): Promise<HungServer> {
  const sockets = new Set<net.Socket>();
  const requests: string[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (chunk: Buffer) => {
      if (head.includes("\r\n\r\n")) return;
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const [method, target] = head.split(" ");
      requests.push(`${method} ${(target ?? "").split("?")[0]}`);
      for (const waiter of waiting.filter((w) => requests.length >= w.count)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (mode === "silent") return;
      const body =
        '{"resources":[],"offset":0,"padding":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}';
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      if (mode === "half-body-then-stall") socket.write(body.slice(0, body.length >> 1));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    requests: () => [...requests],
    arrived: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ count, resolve })),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Counts what a test measured, for RELIABILITY.md (printed once per file). */
export function report(label: string, figures: Record<string, number | string>): void {
  const line = Object.entries(figures)
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
  process.stdout.write(`[reliability] ${label}: ${line}\n`);
}

/** The built binary, as users run it. */
export const BIN = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));

const spawned: ChildProcess[] = [];

/**
 * Spawns the built CLI with only PATH, a home that does not exist and `env` (in `cwd`, else
 * this process's); collects its output. stdin: nothing, a pipe, or the file descriptor given. killSpawnedClis (in an
 * afterEach) ends those still running.
 */
export function spawnBuiltCli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: "ignore" | "pipe" | number; cwd?: string } = {},
) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests", ...options.env },
    stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
    cwd: options.cwd,
  });
  spawned.push(child);
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, out, exited };
}

export function killSpawnedClis(): void {
  for (const child of spawned.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
}
