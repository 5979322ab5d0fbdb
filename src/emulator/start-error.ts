// Why `cpctl emulator` (or startEmulator) could not start: the state file is locked by
// another emulator, unusable, or in a directory that cannot be written; the port is taken.
// These are the user's situation to resolve, not bugs: a typed error, so that main.ts prints
// the message as it is (exit 1) instead of "internal error ... report it".
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OperationError } from "../errors.js";

export class EmulatorStartError extends OperationError {
  constructor(message: string) {
    super(message, "emulator_start");
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
