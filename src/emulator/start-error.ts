// Why `cpctl emulator` (or startEmulator) could not start: the state file is locked by
// another emulator, unusable, or in a directory that cannot be written; the port is taken.
// These are the user's situation to resolve, not bugs: a typed error, the emulator's own (it
// imports nothing of the CLI), which `cpctl emulator` turns into one the CLI prints as it is
// (exit 1) instead of "internal error ... report it" (commands/emulator/run.ts).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

export class EmulatorStartError extends Error {
  /** Stable and machine-readable: the `code` of `cpctl emulator`'s JSON error object. */
  readonly code = "emulator_start";
  constructor(message: string) {
    super(message);
    this.name = "EmulatorStartError";
  }
}

/**
 * Listens on `host`:`port`; a port in use is an EmulatorStartError naming `what` and the flag
 * that picks another. Resolves to HOST:PORT as a URL names it (an IPv6 host in brackets).
 */
export async function listenOn(
  server: Server,
  host: string,
  port: number,
  what: string,
  flag: string,
): Promise<{ port: number; hostPort: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new EmulatorStartError(`cannot start ${what}: ${host}:${port} is already in use (try ${flag} 0)`)
          : error,
      );
    });
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return { port: bound, hostPort: `${host.includes(":") ? `[${host}]` : host}:${bound}` };
}
