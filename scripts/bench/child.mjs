// A server the benchmark runs as a child process (the emulator, the forward proxy): started,
// its address read from its first line, `listening on http://HOST:PORT`, and never left
// behind, even when the benchmark fails half-way.
import { spawn } from "node:child_process";

/**
 * Spawns `argv` and resolves once its first line gives its address: { url, pid, stderr(),
 * close(graceMs) }. `what` names it in errors. close() sends SIGTERM (a clean stop), SIGKILL
 * if it has not exited `graceMs` later, and resolves once it has exited.
 */
export async function startListening({ what, argv, env, cwd, timeoutMs = 15_000 }) {
  const [command, ...args] = argv;
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let early;
  const url = await new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(
      () => fail(new Error(`${what} did not print its address within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const fail = (error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${error.message}\n${stderr}`));
    };
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (!stdout.includes("\n")) return;
      const line = stdout.split("\n")[0];
      const match = /^listening on (http:\/\/\S+)$/.exec(line);
      if (!match) return fail(new Error(`unexpected first line from ${what}: ${JSON.stringify(line)}`));
      clearTimeout(timer);
      resolve(match[1]);
    });
    early = (code, signal) => fail(new Error(`${what} exited early (${code ?? signal})`));
    child.once("exit", early);
    child.once("error", fail);
  });
  child.removeListener("exit", early);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  return {
    url,
    pid: child.pid,
    stderr: () => stderr,
    close: async (graceMs = 5_000) => {
      process.removeListener("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
