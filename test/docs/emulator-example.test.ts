// deploy.test.ts: the steps of a deploy script, tested against a local control plane.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { type Emulator, startEmulator } from "cpctl/emulator";
import { afterAll, beforeAll, expect, test } from "vitest";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator(); // a free port, stages of 0 ms, state in memory
});
afterAll(() => emulator.close());

/** One step of the script, `npx cpctl ...`, pointed at the emulator (and nothing else); its JSON result. */
async function cpctl(command: string) {
  const { PATH, HOME } = process.env;
  const env = { PATH, HOME, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "ci-key" };
  const args = ["cpctl", ...command.split(" "), "-o", "json"];
  const { stdout } = await promisify(execFile)("npx", args, { env });
  return JSON.parse(stdout);
}

test("a release goes live", async () => {
  const deployment = await cpctl(
    "deploy create --name agent --source external_container --image-uri ghcr.io/acme/agent:1.0 --wait",
  );
  expect(deployment.active_revision_id).toBe(deployment.latest_revision_id);
});

test("a release whose container crashes fails the step (exit 5), saying why", async () => {
  await emulator.controls.failNext({ stage: "DEPLOYING", message: "container exited with code 1" });
  await expect(cpctl("deploy patch agent --image-uri ghcr.io/acme/agent:1.1 --wait")).rejects.toMatchObject({
    code: 5,
    stdout: expect.stringContaining('"message": "container exited with code 1"'),
  });
});
