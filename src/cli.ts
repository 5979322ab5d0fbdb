// The process entry point (bundled to dist/cli.js). It adapts the real process to `run`:
// streams, environment, clock, Ctrl-C.
//
// Start-up budget (docs/performance.md): this file has no static import at all, so that
// `--version` is answered by dist/cli.js alone, before any other chunk is read. The version
// is the build-time constant itself (src/version.ts reads the same one); builtins come from
// process.getBuiltinModule, which costs nothing, where an ESM `import "node:fs"` costs about
// 2 ms and touching process.stdout (a stream) about 3 ms.

declare const __CPCTL_VERSION__: string;

export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    writeStdoutNow(`${__CPCTL_VERSION__}\n`);
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

  const [{ run }, { systemClock }] = await Promise.all([import("./main.js"), import("./clock.js")]);
  const code = await run({
    argv,
    io: {
      stdout: outStream(process.stdout),
      stderr: outStream(process.stderr),
      stdin: { isTTY: Boolean(process.stdin.isTTY), stream: process.stdin },
    },
    env: process.env,
    cwd: process.cwd(),
    homeDir: process.getBuiltinModule("node:os").homedir(),
    clock: systemClock,
    signal: controller.signal,
  });
  process.exitCode = code;
}

/** One short write straight to fd 1, without creating the process.stdout stream. */
function writeStdoutNow(text: string): void {
  try {
    process.getBuiltinModule("node:fs").writeSync(1, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A closed reader (`| true`) is not worth an error; a non-blocking pipe that is full
    // (EAGAIN) gets the ordinary, buffered stream.
    if (code === "EAGAIN") process.stdout.write(text);
    else if (code !== "EPIPE") throw error;
  }
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
