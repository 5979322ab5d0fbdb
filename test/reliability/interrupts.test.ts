import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv } from "../helpers/run-cli.js";
import {
  ctrlCAt,
  emulatorEvent,
  expectCleanOutput,
  type HungServer,
  hungServer,
  jsonError,
  killSpawnedClis,
  output,
  sent,
  spawnBuiltCli,
} from "./helpers.js";

const CREATE = [
  "deploy",
  "create",
  "--source",
  "internal_container",
  "--image-uri",
  "registry.example.com/a:1",
];

const hung: HungServer[] = [];
afterEach(async () => {
  killSpawnedClis();
  await Promise.all(hung.splice(0).map((s) => s.close()));
  await closeTestEmulators();
});

/** The moment the emulator has made a deployment (its answer may still be held back). */
const created = (em: TestEmulator) =>
  emulatorEvent(em, (e) => e.phase === "handled" && e.route === "POST /v2/deployments" && e.status === 201);

async function named(em: TestEmulator, name: string): Promise<{ id: string; latest_revision_id: string }[]> {
  return (await em.get(`/v2/deployments?name=${encodeURIComponent(name)}`)).json.resources;
}

describe("Ctrl-C while a create is in flight (in-process)", () => {
  it("the server made it: prints the deployment and its ID, still exits 130", async () => {
    const em = await startTestEmulator();
    // The work is done at once; the answer is held back (for ten minutes).
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", latency_ms: 600_000 });
    const r = await ctrlCAt(created(em), [...CREATE, "--name", "late-answer", "-o", "json"], {
      env: cliEnv(em),
    });

    expectCleanOutput(r);
    expect(r.code).toBe(130);
    const [made] = await named(em, "late-answer");
    expect(JSON.parse(r.stdout)).toMatchObject({ id: made!.id, name: "late-answer" });
    const error = jsonError(r.stderr);
    expect(error.code).toBe("interrupted");
    expect(error.message).toContain(`deployment 'late-answer' was created (${made!.id})`);
    expect(error.message).toContain(`cpctl deploy wait ${made!.id} --revision ${made!.latest_revision_id}`);
    expect(sent(em, "POST /v2/deployments")).toBe(1);
    expect(await named(em, "late-answer")).toHaveLength(1);
  });

  it("the ID comes out in every format: the id format prints just the ID", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", latency_ms: 600_000 });
    const r = await ctrlCAt(created(em), [...CREATE, "--name", "id-only", "-o", "id"], { env: cliEnv(em) });
    expect(r.code).toBe(130);
    expect(r.stdout.trim()).toBe((await named(em, "id-only"))[0]!.id);
    expect(r.stderr).toMatch(/^error: interrupted, but deployment 'id-only' was created/m);
  });

  it("the server did not make it: says none exists and that running again is safe", async () => {
    const em = await startTestEmulator();
    // Held back, then dropped without doing the work.
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", latency_ms: 600_000, drop: "before" });
    const r = await ctrlCAt(
      emulatorEvent(em, (e) => e.phase === "received" && e.route === "POST /v2/deployments"),
      [...CREATE, "--name", "never-made"],
      { env: cliEnv(em) },
    );
    expectCleanOutput(r);
    expect(r.code).toBe(130);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("no deployment 'never-made' exists yet");
    expect(r.stderr).toContain("Running the command again is safe");
    expect(await named(em, "never-made")).toHaveLength(0);
  });

  it("Ctrl-C during the look-up after an ambiguous failure: exit 130, told to look before retrying", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", drop: "after" });
    em.emulator.addFault({ method: "GET", path: "/v2/deployments", latency_ms: 600_000 });
    const r = await ctrlCAt(
      emulatorEvent(em, (e) => e.phase === "handled" && e.route === "GET /v2/deployments"),
      [...CREATE, "--name", "mid-check"],
      { env: cliEnv(em) },
    );
    expectCleanOutput(r);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("interrupted while checking whether 'mid-check' was created");
    expect(r.stderr).toContain('look with: cpctl deploy get "mid-check"');
    expect(sent(em, "POST /v2/deployments")).toBe(1);
  });

  it("the look-up itself hangs: it is cut short, and the user is told to look before retrying", async () => {
    const server = await hungServer("silent");
    hung.push(server);
    const r = await ctrlCAt(
      server.arrived(1),
      [...CREATE, "--name", "unknown", "--request-timeout", "200ms"],
      { env: { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "interrupt-test-key" } },
    );
    expectCleanOutput(r);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain("could not check whether 'unknown' was created");
    expect(r.stderr).toContain('look with: cpctl deploy get "unknown"');
    // The POST once, then the bounded look-up; nothing else.
    expect(server.requests()[0]).toBe("POST /v2/deployments");
    expect(server.requests().filter((q) => q.startsWith("POST"))).toHaveLength(1);
  });
});

describe("a real SIGINT to the built binary", () => {
  it("deploy wait: exit 130 and the resume command, once the first status line is out", async () => {
    const em = await startTestEmulator({ stageMs: 3_600_000 });
    const d = await em.createDeployment("gitrepo", "long-build");
    const { child, out, exited } = spawnBuiltCli(["deploy", "wait", "long-build", "--interval", "1s"], {
      env: { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey },
    });
    await output(child, "stderr", /revision \S+: CREATING/, () => out.stderr);
    child.kill("SIGINT");
    const [code] = await exited;
    expect(code).toBe(130);
    expect(out.stderr).toContain(
      `interrupted while waiting for revision ${d.latest_revision_id} (last status: CREATING)`,
    );
    expect(out.stderr).toContain(`Resume with: cpctl deploy wait ${d.id} --revision ${d.latest_revision_id}`);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it("deploy wait -o json: the verdict says interrupted", async () => {
    const em = await startTestEmulator({ stageMs: 3_600_000 });
    const d = await em.createDeployment("internal_container", "long-json");
    const { child, out, exited } = spawnBuiltCli(["deploy", "wait", d.id, "-o", "json"], {
      env: { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey },
    });
    await output(child, "stderr", /revision \S+: CREATING/, () => out.stderr);
    child.kill("SIGINT");
    const [code] = await exited;
    expect(code).toBe(130);
    expect(JSON.parse(out.stdout)).toMatchObject({
      result: "interrupted",
      deployment_id: d.id,
      status: "CREATING",
    });
    expect(jsonError(out.stderr).message).toContain(`Resume with: cpctl deploy wait ${d.id}`);
  });

  it("deploy create with its answer held back: exit 130 with the new deployment on stdout", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "POST", path: "/v2/deployments", latency_ms: 600_000 });
    const done = created(em);
    const { child, out, exited } = spawnBuiltCli([...CREATE, "--name", "sigint-create", "-o", "json"], {
      env: { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey },
    });
    await Promise.race([done, exited.then(() => Promise.reject(new Error(`exited early: ${out.stderr}`)))]);
    child.kill("SIGINT");
    const [code] = await exited;
    expect(code).toBe(130);
    const [made] = await named(em, "sigint-create");
    expect(JSON.parse(out.stdout)).toMatchObject({ id: made!.id, name: "sigint-create" });
    expect(jsonError(out.stderr)).toMatchObject({ code: "interrupted" });
    expect(sent(em, "POST /v2/deployments")).toBe(1);
  });
});
