// The built emulator as a child process, as users run it: `cpctl emulator --port 0`, whose
// first stdout line is `listening on http://HOST:PORT`.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

export interface SpawnedEmulator {
  child: ChildProcess;
  url: string;
  /** The first stdout line, as printed. */
  firstLine: string;
  /** What stdout held when the first line had come (the registry's line comes with it). */
  startOutput: string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** What it wrote on stderr so far: the reason, when stop() gives something other than 0. */
  stderr(): string;
}

/** `node` is the Node.js binary to run it with (default: the one running the tests). */
export async function spawnEmulator(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  node: string = process.execPath,
): Promise<SpawnedEmulator> {
  const child = spawn(node, [bin, "emulator", "--port", "0", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    stderr += chunk;
  });
  let first = "";
  for await (const chunk of child.stdout!) {
    first += chunk;
    if (first.includes("\n")) break;
  }
  const firstLine = first.split("\n")[0]!;
  return {
    child,
    firstLine,
    startOutput: first,
    url: firstLine.slice("listening on ".length),
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      return code;
    },
    stderr: () => stderr,
  };
}
