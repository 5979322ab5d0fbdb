// The retry policy, seen from the command line: which calls are retried and on what, the
// back-off and its jitter, Retry-After, the bound and the message after it, and the calls
// that are never sent twice. The fault matrix covers every fault once; this file looks at
// the policy's details.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY } from "../../src/api/retry.js";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { closedPort } from "../helpers/http-server.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";
import { allDeployments, expectCleanOutput, jsonError, sent } from "./helpers.js";

afterEach(closeTestEmulators);

const LIST = "GET /v2/deployments";
const POST = "POST /v2/deployments";

describe("safe calls are retried with exponential back-off and full jitter", () => {
  it("each gap is random below base x 2^(n-1), and the gaps differ from run to run", async () => {
    const em = await startTestEmulator();
    const seen: number[][] = [];
    for (let run = 0; run < 8; run++) {
      em.emulator.addFault({ method: "GET", path: "/v2/deployments", status: 503, count: 3 });
      const clock = instantClock();
      const r = await runCli(["deploy", "list", "-o", "json"], { env: cliEnv(em), clock });
      expect(r.code, r.stderr).toBe(0);
      expect(clock.sleeps).toHaveLength(3);
      clock.sleeps.forEach((ms, i) => {
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(DEFAULT_RETRY_POLICY.baseDelayMs * 2 ** i);
      });
      seen.push(clock.sleeps);
    }
    expect(sent(em, LIST)).toBe(8 * 4);
    // Jitter: eight runs of three random gaps are not all the same.
    expect(new Set(seen.map((s) => s.join(","))).size).toBeGreaterThan(1);
  });

  it("Retry-After replaces the back-off, and --debug shows each attempt", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "GET", path: "/v2/deployments", status: 429, retry_after: 7, count: 2 });
    const clock = instantClock();
    const r = await runCli(["deploy", "list", "--debug"], { env: cliEnv(em), clock });
    expect(r.code).toBe(0);
    expect(clock.sleeps).toEqual([7000, 7000]);
    expect(r.stderr).toContain("< retry-after: 7");
    expect(r.stderr).toContain("! retrying in 7s (attempt 2 of 4)");
    expect(r.stderr).toContain("(attempt 3 of 4)");
  });

  it("a Retry-After longer than a minute is not waited for: a clear error at once", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({
      method: "GET",
      path: "/v2/deployments",
      status: 503,
      retry_after: 3600,
      count: 5,
    });
    const clock = instantClock();
    const r = await runCli(["deploy", "list"], { env: cliEnv(em), clock });
    expectCleanOutput(r);
    expect(r.code).toBe(1);
    expect(clock.sleeps).toEqual([]);
    expect(sent(em, LIST)).toBe(1);
    expect(r.stderr).toContain(
      "the server asked to retry after 3600s, longer than the 60s this command waits",
    );
  });

  it("500 is not retried (the server failed at the work, it did not ask to come back)", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "GET", path: "/v2/deployments", status: 500, count: 1 });
    const r = await runCli(["deploy", "list"], { env: cliEnv(em) });
    expect(r.code).toBe(1);
    expect(sent(em, LIST)).toBe(1);
  });

  it("a refused connection is retried, then reported with the address and what to set", async () => {
    const port = await closedPort();
    const clock = instantClock();
    const r = await runCli(["deploy", "list", "--debug"], {
      env: { CPCTL_BASE_URL: `http://127.0.0.1:${port}`, CPCTL_API_KEY: "retry-test-key-123" },
      clock,
    });
    expectCleanOutput(r);
    expect(r.code).toBe(1);
    expect(clock.sleeps).toHaveLength(3);
    expect(r.stderr).toContain(
      `error: connection refused by 127.0.0.1:${port}: is the control plane running at http://127.0.0.1:${port}? set --base-url or CPCTL_BASE_URL`,
    );
    expect(r.stderr).toContain("gave up after 4 attempts (GET /v2/deployments)");
  });
});

describe("calls that are not safe to repeat", () => {
  it("a create that never reached the server (connection refused) may be sent again", async () => {
    const port = await closedPort();
    const r = await runCli(
      ["deploy", "create", "--name", "n", "--source", "internal_container", "--image-uri", "x:1", "--debug"],
      {
        env: { CPCTL_BASE_URL: `http://127.0.0.1:${port}`, CPCTL_API_KEY: "retry-test-key-123" },
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("(attempt 4 of 4)");
    // Nothing reached a server, so nothing is ambiguous: no look-up by name.
    expect(r.stderr).not.toContain("checking whether");
  });

  it("a create answered 503 or 429 is sent once and the user is told to run it again", async () => {
    for (const status of [503, 429]) {
      const em = await startTestEmulator();
      em.emulator.addFault({ method: "POST", path: "/v2/deployments", status, retry_after: 1, count: 5 });
      const r = await runCli(
        ["deploy", "create", "--name", `s${status}`, "--source", "internal_container", "--image-uri", "x:1"],
        {
          env: cliEnv(em),
        },
      );
      expectCleanOutput(r);
      expect(r.code).toBe(1);
      expect(sent(em, POST)).toBe(1);
      expect(r.stderr).toMatch(/safe to run the command again|run the command again/);
      expect(await allDeployments(em)).toHaveLength(0);
    }
  });

  it("an ambiguous create whose look-up fails too: exit 1, told to look before running again", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", drop: "after" });
    em.emulator.addFault({ method: "GET", path: "/v2/deployments", status: 503, count: 10 });
    const r = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "unsure",
        "--source",
        "internal_container",
        "--image-uri",
        "x:1",
        "-o",
        "json",
      ],
      {
        env: cliEnv(em),
      },
    );
    expectCleanOutput(r);
    expect(r.code).toBe(1);
    const error = jsonError(r.stderr);
    expect(error.message).toContain("Could not check whether it was created");
    expect(error.message).toContain('look with: cpctl deploy get "unsure"');
    expect(sent(em, POST)).toBe(1);
    expect(sent(em, LIST)).toBe(4);
    em.emulator.clearFaults();
    // It was in fact created (drop after the work): exactly once.
    expect((await allDeployments(em)).map((d) => d.name)).toEqual(["unsure"]);
  });

  it("an ambiguous create is followed by one look-up; running the command again cannot double it (409)", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", drop: "after" });
    const args = [
      "deploy",
      "create",
      "--name",
      "once",
      "--source",
      "internal_container",
      "--image-uri",
      "x:1",
      "-o",
      "id",
    ];
    const first = await runCli(args, { env: cliEnv(em) });
    expect(first.code).toBe(0);
    const again = await runCli(args, { env: cliEnv(em) });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
    expect((await allDeployments(em)).map((d) => d.id)).toEqual([first.stdout.trim()]);
  });

  it("a DELETE whose answer was lost is retried, and the 404 of the retry counts as done", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "doomed");
    em.emulator.addFault({ method: "DELETE", path: "/v2/deployments/*", drop: "after" });
    const r = await runCli(["deploy", "delete", d.id, "--yes", "-o", "json"], { env: cliEnv(em) });
    expectCleanOutput(r);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: d.id, name: "doomed", deleted: true });
    expect(sent(em, "DELETE /v2/deployments/{deployment_id}")).toBe(2);
    expect(await allDeployments(em)).toHaveLength(0);
  });

  it("asking for an upload URL is safe to repeat: retried on 503", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_source", "src");
    em.emulator.addFault({ method: "POST", path: "/v2/deployments/*/upload-url", status: 503, count: 2 });
    const tarball = Buffer.from([
      0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    const dir = freshDir("upload");
    writeFileSync(join(dir, "src.tar.gz"), tarball);
    const r = await runCli(["deploy", "upload", d.id, "src.tar.gz", "-o", "json"], {
      env: cliEnv(em),
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(sent(em, "POST /v2/deployments/{deployment_id}/upload-url")).toBe(3);
  });
});
