// `deploy push --image-archive` with the built binary against the built emulator, as users run
// them: the emulator names its registry at start-up and in its health answer, and an image
// saved to a file is shipped and deployed with no daemon.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerArchive, makeTestImage } from "../helpers/images.js";
import { freshDir } from "../helpers/run-cli.js";
import { type SpawnedEmulator, spawnEmulator } from "../helpers/spawn-emulator.js";

const bin = fileURLToPath(new URL("../../bin/cpctl.cjs", import.meta.url));
const baseEnv = { PATH: process.env.PATH ?? "", HOME: "/nonexistent-home-for-tests", CI: "true" };

let emulator: SpawnedEmulator;

beforeAll(async () => {
  emulator = await spawnEmulator(bin, ["--stage-ms", "5"], baseEnv);
});

afterAll(async () => {
  expect(await emulator.stop(), emulator.stderr()).toBe(0);
});

describe("the built cpctl ships an image", () => {
  it("the emulator says where its registry is; push --image-archive deploys the image by digest", async () => {
    const health = await fetch(`${emulator.url}/_emulator/health`);
    const { registry, agents } = (await health.json()) as { registry: string; agents: string };
    expect(registry).toMatch(/^127\.0\.0\.1:\d+$/);
    // The second line at start-up, right after `listening on`; then the agent servers'.
    expect(emulator.startOutput).toBe(
      `listening on ${emulator.url}\nregistry listening on http://${registry}\nagent servers listening on ${agents}\n`,
    );

    const file = join(freshDir("e2e-image"), "image.tar");
    writeFileSync(file, dockerArchive(makeTestImage("e2e")));
    const push = await execa(
      process.execPath,
      [
        bin,
        "deploy",
        "push",
        "--image-archive",
        file,
        "--name",
        "e2e-image",
        "-o",
        "json",
        "--interval",
        "100ms",
      ],
      {
        env: { ...baseEnv, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "e2e-key-1234" },
        extendEnv: false,
        reject: false,
        timeout: 30_000,
      },
    );
    expect(push.exitCode, push.stderr).toBe(0);
    const result = JSON.parse(push.stdout);
    expect(result).toMatchObject({ result: "deployed", created: true });
    expect(result.image_uri).toMatch(
      new RegExp(`^${registry}/deployments/[0-9a-f-]{36}/e2e-image@sha256:[a-f0-9]{64}$`),
    );
    expect(push.stderr).toMatch(/^3\. Pushed /m);
    expect(push.stderr).not.toContain("cpr1.");
  });
});
