// Outcomes the user can trust after a change: when a PATCH or DELETE may or may not have been
// applied (Ctrl-C while it was in flight, an answer lost), the message says so and gives the
// command that shows the state; the command that resumes a wait reaches the same deployment
// from another shell without carrying a credential; a page of a list is never a silent cut;
// after --wait the deployment printed is the one after the wait.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";
import { ctrlCAt, emulatorEvent, jsonError, sent } from "./helpers.js";

afterEach(closeTestEmulators);

const PATCH = "PATCH /v2/deployments/{deployment_id}";
const DELETE = "DELETE /v2/deployments/{deployment_id}";

const handled = (em: TestEmulator, route: string) =>
  emulatorEvent(em, (e) => e.phase === "handled" && e.route === route);

describe("a change that may or may not have been applied", () => {
  it("Ctrl-C while the PATCH is in flight: exit 130, 'may have been applied', and the command to look", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "svc");
    // The work is done at once; the answer is held back.
    em.emulator.addFault({ method: "PATCH", path: "/v2/deployments/*", latency_ms: 600_000 });
    const r = await ctrlCAt(
      handled(em, PATCH),
      ["deploy", "patch", "svc", "--image-uri", "x:2", "-o", "json"],
      { env: cliEnv(em) },
    );
    expect(r.code).toBe(130);
    const error = jsonError(r.stderr);
    expect(error.code).toBe("interrupted");
    expect(error.message).toContain("interrupted while the patch was in flight: it may have been applied");
    expect(error.message).toContain(`See the deployment's current state with: cpctl deploy get ${d.id}`);
    expect(sent(em, PATCH)).toBe(1);
  });

  it("an answer lost after the PATCH was applied: exit 1, 'may have been applied', the command to look", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "svc");
    em.emulator.addFault({ method: "PATCH", path: "/v2/deployments/*", drop: "after" });
    const r = await runCli(["deploy", "patch", "svc", "--image-uri", "x:2"], { env: cliEnv(em) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("may have been applied");
    expect(r.stderr).toContain(
      `See the deployment's current state with: cpctl deploy get ${d.id} --base-url ${em.url}`,
    );
    expect(sent(em, PATCH)).toBe(1);
  });

  it("Ctrl-C while the DELETE is in flight says the same, with the command to look", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("internal_container", "svc");
    em.emulator.addFault({ method: "DELETE", path: "/v2/deployments/*", latency_ms: 600_000 });
    const r = await ctrlCAt(handled(em, DELETE), ["deploy", "delete", "svc", "--yes"], { env: cliEnv(em) });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("interrupted while the delete was in flight: it may have been applied");
    expect(r.stderr).toContain(`cpctl deploy get ${d.id}`);
  });
});

describe("the command that resumes a wait", () => {
  it("carries --profile, --base-url and --tenant-id as given, never a credential", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    const d = await em.createDeployment("internal_container", "svc");
    const home = freshDir("home");
    mkdirSync(join(home, ".config", "cpctl"), { recursive: true });
    writeFileSync(
      join(home, ".config", "cpctl", "config.yaml"),
      "profiles:\n  staging:\n    output: table\n",
    );
    const r = await runCli(
      [
        "--profile",
        "staging",
        "--base-url",
        em.url,
        "--tenant-id",
        em.tenantId,
        "deploy",
        "wait",
        "svc",
        "--timeout",
        "5s",
        "--interval",
        "1s",
      ],
      { env: { CPCTL_API_KEY: "resume-test-key-123" }, homeDir: home, clock: instantClock() },
    );
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(
      `Resume with: cpctl deploy wait ${d.id} --revision ${d.latest_revision_id} --profile staging --base-url ${em.url} --tenant-id ${em.tenantId}`,
    );
    expect(r.stderr).not.toContain("resume-test-key-123");
    expect(r.stderr).not.toMatch(/api-key|X-Api-Key/i);
  });
});

describe("a page is never a silent cut", () => {
  it("deploy list without --all says on stderr when more exist, and how to get them", async () => {
    const em = await startTestEmulator();
    for (const name of ["a", "b", "c"]) await em.createDeployment("internal_container", name);
    const cut = await runCli(["deploy", "list", "--limit", "2", "-o", "id"], { env: cliEnv(em) });
    expect(cut.code).toBe(0);
    expect(cut.stdout.trim().split("\n")).toHaveLength(2);
    expect(cut.stderr).toContain(
      "more deployments exist than the 2 shown: add --offset 2 for the next page, or --all",
    );
    const last = await runCli(["deploy", "list", "--limit", "2", "--offset", "2", "-o", "id"], {
      env: cliEnv(em),
    });
    expect(last.stdout.trim().split("\n")).toHaveLength(1);
    expect(last.stderr).toBe("");
    const whole = await runCli(["deploy", "list", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(whole.stdout)).toHaveLength(3);
    expect(whole.stderr).toBe("");
  });

  it("a page of the largest size asks once more to know", async () => {
    const em = await startTestEmulator();
    for (let i = 0; i < 101; i++) await em.createDeployment("internal_container", `d${i}`);
    const r = await runCli(["deploy", "list", "--limit", "100", "-o", "id"], { env: cliEnv(em) });
    expect(r.stdout.trim().split("\n")).toHaveLength(100);
    expect(r.stderr).toContain("add --offset 100 for the next page");
  });

  it("deploy revisions likewise", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "svc");
    for (const tag of ["2", "3"])
      expect(
        (await runCli(["deploy", "patch", "svc", "--image-uri", `x:${tag}`], { env: cliEnv(em) })).code,
      ).toBe(0);
    const r = await runCli(["deploy", "revisions", "svc", "--limit", "2", "-o", "id"], { env: cliEnv(em) });
    expect(r.stdout.trim().split("\n")).toHaveLength(2);
    expect(r.stderr).toContain("more revisions exist than the 2 shown: add --offset 2");
  });
});

describe("after --wait", () => {
  it("the deployment printed is the one after the wait: active_revision_id is the new revision", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    const d = await em.createDeployment("internal_container", "svc");
    em.settle();
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(["deploy", "patch", "svc", "--image-uri", "x:2", "--wait", "-o", "json"], {
      env: cliEnv(em),
      clock,
    });
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed.latest_revision_id).not.toBe(d.latest_revision_id);
    expect(printed.active_revision_id).toBe(printed.latest_revision_id);
  });

  it("a failed wait still prints the deployment (its ID reaches scripts) and exits 5", async () => {
    const em = await startTestEmulator({ stageMs: 60_000 });
    await em.createDeployment("internal_container", "svc");
    em.settle();
    em.emulator.failNextRevision({ stage: "DEPLOYING" });
    const clock = instantClock(Date.now(), (ms) => em.advance(ms));
    const r = await runCli(["deploy", "patch", "svc", "--image-uri", "x:2", "--wait", "-o", "json"], {
      env: cliEnv(em),
      clock,
    });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout).source_revision_config.image_uri).toBe("x:2");
  });
});
