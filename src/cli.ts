// The process entry point (bundled to dist/cli.js). It adapts the real process to `run`:
// streams, environment, clock, Ctrl-C. `--version` is answered before anything else loads.
import { VERSION } from "./version.js";

export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  // `cpctl ... | head -1` closes stdout early: that is not an error worth a stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  });

  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    // A second Ctrl-C means "now": do not wait for the command to wind down.
    if (interrupts > 1) process.exit(130);
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onInterrupt);

  const [{ run }, { systemClock }, { homedir }] = await Promise.all([
    import("./main.js"),
    import("./clock.js"),
    import("node:os"),
  ]);
  const code = await run({
    argv,
    io: {
      stdout: outStream(process.stdout),
      stderr: outStream(process.stderr),
      stdin: { isTTY: Boolean(process.stdin.isTTY), stream: process.stdin },
    },
    env: process.env,
    cwd: process.cwd(),
    homeDir: homedir(),
    clock: systemClock,
    signal: controller.signal,
  });
  process.exitCode = code;
}

function outStream(stream: NodeJS.WriteStream) {
  return {
    write: (text: string) => {
      stream.write(text);
    },
    isTTY: Boolean(stream.isTTY),
    get columns() {
      return stream.columns;
    },
    stream,
  };
}
