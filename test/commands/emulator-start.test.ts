// `cpctl emulator` that cannot start (here: its port is taken) says why as the CLI's own error:
// exit 1, the emulator's message as it is, code `emulator_start` in the JSON error object.
// The emulator throws its own EmulatorStartError (it imports nothing of the CLI); the command
// turns it into the CLI's.
import { createServer, type Server } from "node:net";
import { afterEach, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";

let taken: Server | null = null;

afterEach(async () => {
  await new Promise((resolve) => taken?.close(resolve) ?? resolve(null));
  taken = null;
});

async function takenPort(): Promise<number> {
  taken = createServer();
  await new Promise<void>((resolve) => taken!.listen(0, "127.0.0.1", resolve));
  const address = taken.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

it("a port in use: exit 1, the reason as it is, and code emulator_start in JSON", async () => {
  const port = await takenPort();
  const ports = ["--port", String(port), "--registry-port", "0", "--agents-port", "0"];

  const plain = await runCli(["emulator", ...ports]);
  expect(plain.code).toBe(1);
  expect(plain.stdout).toBe("");
  expect(plain.stderr).toBe(
    `error: cannot start the emulator: 127.0.0.1:${port} is already in use (try --port 0)\n`,
  );

  const json = await runCli(["emulator", ...ports, "-o", "json"]);
  expect(json.code).toBe(1);
  expect(JSON.parse(json.stderr)).toEqual({
    error: {
      code: "emulator_start",
      status: null,
      message: `cannot start the emulator: 127.0.0.1:${port} is already in use (try --port 0)`,
      details: null,
    },
  });
});
