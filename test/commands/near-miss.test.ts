// A near-miss name does not make a second deployment without a word (issue 36, point 3):
// `deploy push --name Weather` or `deploy apply` of a file named Weather, beside an existing
// `weather`, names it; on a terminal it asks (default no), elsewhere it is exit 2 unless
// --create. A difference only in digits (agent-1, agent-2; NAME-pr-1, NAME-pr-2) and an exact
// name never ask. The tenant's names are read only on the way to a create.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  closeTestEmulators,
  deploymentNames,
  startTestEmulator,
  type TestEmulator,
} from "../helpers/emulator.js";
import { cliEnv, freshDir, instantClock, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const count = (em: TestEmulator, route: string) => em.emulator.stats().requests[route] ?? 0;
const CREATE = "POST /v2/deployments";
const LIST = "GET /v2/deployments";

function project(): string {
  const root = freshDir("near-miss");
  writeFileSync(join(root, "agent.json"), '{"graphs":{"agent":"./agent.py:graph"}}');
  writeFileSync(join(root, "agent.py"), "graph = None\n");
  return root;
}

function push(em: TestEmulator, args: string[], extra: Parameters<typeof runCli>[1] = {}) {
  return runCli(["deploy", "push", ...args, "--interval", "1s"], {
    clock: instantClock(Date.now(), (ms) => em.advance(ms)),
    ...extra,
    env: cliEnv(em, { ...(extra.env as Record<string, string>) }),
  });
}

describe("deploy push: a near-miss name", () => {
  it("in CI: exit 2 naming the deployment that exists and both ways on, nothing created", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("internal_source", "weather");
    const r = await push(em, [project(), "--name", "Weather", "-o", "json"], { env: { CI: "true" } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("a deployment named 'weather' exists; did you mean it?");
    const error = JSON.parse(r.stderr.trim().split("\n").at(-1)!).error;
    expect(error.message.split("\n")[0]).toBe(
      "not creating deployment 'Weather': its name is a near miss of 'weather'; pass --name weather to push to it, or pass --create to create 'Weather' anyway",
    );
    expect(count(em, CREATE)).toBe(1); // the test's own
    expect(await deploymentNames(em)).toEqual(["weather"]);
  });

  it("one edit away, case aside, is one too; --create creates it with no question and no look-up", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("internal_source", "weather");
    const typo = await push(em, [project(), "--name", "Weathr"], { env: { CI: "true" } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("near miss of 'weather'");

    const lists = count(em, LIST);
    const r = await push(em, [project(), "--name", "Weather", "--create", "-o", "json"], {
      env: { CI: "true" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: true, deployment: { name: "Weather" } });
    expect(r.stderr).not.toContain("did you mean");
    // The look-up by exact name only: --create reads no other name.
    expect(count(em, LIST) - lists).toBe(1);
    expect(await deploymentNames(em)).toEqual(["Weather", "weather"]);
  });

  it("on a terminal: asks, default no; no creates nothing (exit 1), yes creates it", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("internal_source", "weather");
    const dir = project();
    const no = await push(em, [dir, "--name", "Weather"], {
      env: { NO_COLOR: "1" },
      tty: true,
      stdin: "\n",
    });
    expect(no.code, no.stderr).toBe(1);
    expect(no.stderr).toContain("a deployment named 'weather' exists; did you mean it?");
    expect(no.stderr).toContain("Create a new deployment 'Weather' anyway? (y/N)");
    expect(no.stderr).toContain("cancelled: nothing was created");
    expect(no.stderr).toContain("Pass --name weather to push to it.");
    expect(await deploymentNames(em)).toEqual(["weather"]);

    // --yes: no offer to remember the name after the push, whose question would wait for stdin.
    const yes = await push(em, [dir, "--name", "Weather", "--no-wait", "--yes"], {
      env: { NO_COLOR: "1" },
      tty: true,
      stdin: "y\n",
    });
    expect(yes.code, yes.stderr).toBe(0);
    expect(await deploymentNames(em)).toEqual(["Weather", "weather"]);
  });

  it("a difference only in digits is no near miss: agent-2 beside agent-1, a preview beside another", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("internal_source", "agent-1");
    await em.createDeployment("internal_source", "my-agent-pr-1");
    const dir = project();
    const second = await push(em, [dir, "--name", "agent-2"], { env: { CI: "true" } });
    expect(second.code, second.stderr).toBe(0);
    const preview = await push(em, [dir, "--name", "my-agent", "--preview", "2"], { env: { CI: "true" } });
    expect(preview.code, preview.stderr).toBe(0);
    expect(`${second.stderr}${preview.stderr}`).not.toContain("did you mean");
    expect(await deploymentNames(em)).toEqual(["agent-1", "agent-2", "my-agent-pr-1", "my-agent-pr-2"]);
  });

  it("a preview's near miss names the NAME to pass", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("internal_source", "my-agent-pr-3");
    const r = await push(em, [project(), "--name", "My-agent", "--preview", "3"], { env: { CI: "true" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pass --name my-agent to push to its preview");
  });

  it("the exact name never asks, and reads no other name; a create reads them once (one page here)", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("internal_source", "weather");
    await em.createDeployment("internal_source", "weathers");
    const dir = project();
    let lists = count(em, LIST);
    const exact = await push(em, [dir, "--name", "weather"], { env: { CI: "true" } });
    expect(exact.code, exact.stderr).toBe(0);
    expect(exact.stderr).not.toContain("did you mean");
    expect(count(em, LIST) - lists).toBe(1);

    lists = count(em, LIST);
    const fresh = await push(em, [dir, "--name", "forecast"], { env: { CI: "true" } });
    expect(fresh.code, fresh.stderr).toBe(0);
    // By exact name, then the tenant's names (one page of up to 100).
    expect(count(em, LIST) - lists).toBe(2);
  });
});

describe("deploy apply: a near-miss name", () => {
  function file(name: string): string {
    const dir = freshDir("apply-near");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "deploy.yaml"),
      `name: ${name}\nsource: external_container\nsource_revision_config:\n  image_uri: ghcr.io/acme/web:1\n`,
    );
    return dir;
  }

  it("in CI: exit 2 saying which name to write in the file, or --create; --create creates it", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("external_container", "web");
    const cwd = file("Web");
    const r = await runCli(["deploy", "apply", "-f", "deploy.yaml", "-o", "json"], {
      env: cliEnv(em, { CI: "true" }),
      cwd,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("a deployment named 'web' exists; did you mean it?");
    expect(JSON.parse(r.stderr.trim().split("\n").at(-1)!).error.message.split("\n")[0]).toBe(
      "not creating deployment 'Web': its name is a near miss of 'web'; write name: web in deploy.yaml to apply it there, or pass --create to create 'Web' anyway",
    );
    expect(count(em, CREATE)).toBe(1);

    const created = await runCli(["deploy", "apply", "-f", "deploy.yaml", "--create", "-o", "json"], {
      env: cliEnv(em, { CI: "true" }),
      cwd,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).name).toBe("Web");
    expect(await deploymentNames(em)).toEqual(["Web", "web"]);
  });

  it("on a terminal: asks, and creates on yes", async () => {
    const em = await startTestEmulator({ stageMs: 0 });
    await em.createDeployment("external_container", "web");
    const r = await runCli(["deploy", "apply", "-f", "deploy.yaml"], {
      env: cliEnv(em, { NO_COLOR: "1" }),
      cwd: file("wen"),
      tty: true,
      stdin: "y\n",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Create a new deployment 'wen' anyway? (y/N)");
    expect(await deploymentNames(em)).toEqual(["web", "wen"]);
  });
});
