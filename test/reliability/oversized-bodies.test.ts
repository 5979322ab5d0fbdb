// A request body over the control plane's 1 MiB limit (a large --secrets-file, say) gets the
// server's 413, every time: never a "connection reset" that says the change may have been
// applied. The emulator (a separate process, as users run it) reads and discards the rest of a
// refused body before it answers, so the client's system never resets the connection under
// its 413; and a connection the server resets while cpctl is still sending the body is
// reported for what it is: the server did not take the request whole, so nothing happened.
import { writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/client.js";
import { closeIdleConnections } from "../../src/api/transport.js";
import { NetworkError } from "../../src/errors.js";
import { failure } from "../helpers/failure.js";
import { freshDir } from "../helpers/run-cli.js";
import { type SpawnedEmulator, spawnEmulator } from "../helpers/spawn-emulator.js";
import { BIN, jsonError, killSpawnedClis, report, spawnBuiltCli } from "./helpers.js";

let emulator: SpawnedEmulator;
let dir: string;
beforeAll(async () => {
  emulator = await spawnEmulator(BIN, ["--stage-ms", "0"], {
    PATH: process.env.PATH ?? "",
    HOME: "/nonexistent",
  });
  dir = freshDir("big-bodies");
  // 80 secrets of 50 KB: a create body of about 4 MB, four times the limit.
  writeFileSync(
    join(dir, "big.env"),
    Array.from({ length: 80 }, (_, i) => `S${i}=${"v".repeat(50_000)}`).join("\n"),
  );
});
afterAll(() => emulator.stop());
afterEach(() => {
  killSpawnedClis();
  closeIdleConnections();
});

const ROUNDS = 20;

describe("a body over the limit", () => {
  it(`the built binary against a separate emulator, ${ROUNDS} creates of 4 MB: 413 each time, exit 2`, async () => {
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < ROUNDS; i++) {
      const run = spawnBuiltCli(
        [
          "deploy",
          "create",
          "--name",
          `big-${i}`,
          "--source",
          "internal_container",
          "--image-uri",
          "r.example.com/a:1",
          "--secrets-file",
          join(dir, "big.env"),
          "-o",
          "json",
        ],
        { env: { CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "big-bodies" } },
      );
      const [code] = await run.exited;
      const error = jsonError(run.out.stderr);
      const outcome = `${code}:${error.code}:${error.status}`;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    report("bodies over the limit", { rounds: ROUNDS, outcomes: JSON.stringify(outcomes) });
    expect(outcomes).toEqual({ [`2:payload_too_large:413`]: ROUNDS });
  }, 120_000);

  it("a server that resets the connection while the body is still going: not applied, and why", async () => {
    // Reads the request head, then resets at once. The body is far larger than what the
    // sockets' buffers hold, so the client is surely still writing it when the reset comes.
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.once("data", () => socket.resetAndDestroy());
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    try {
      const client = new ApiClient({
        baseUrl: url,
        credentials: { apiKey: "k" },
        requestTimeoutMs: 10_000,
        userAgent: "t",
        sleep: async () => {},
      });
      const error = await failure(
        client.post(
          "/v2/deployments",
          { name: "reset", padding: "x".repeat(64 * 1024 * 1024) },
          { maxAttempts: 1 },
        ),
        NetworkError,
      );
      expect(error.message).toMatch(
        /^the connection to 127\.0\.0\.1:\d+ was reset while cpctl was still sending the request \(POST \/v2\/deployments\): the server did not take it whole$/,
      );
      expect(error.mayHaveReachedServer).toBe(false);
      expect(error.hints).toContain(
        "a request body of 64 MiB: the control plane takes at most 1 MiB (it answers 413, or closes the connection)",
      );
      expect(error.hints.join("\n")).not.toContain("may have been applied");
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
