import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

const deletes = (em: TestEmulator) =>
  em.emulator.stats().requests["DELETE /v2/deployments/{deployment_id}"] ?? 0;

describe("deploy delete", () => {
  it("with --yes off a terminal: deletes, prints nothing on stdout, confirms on stderr; then get exits 4", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    const r = await runCli(["deploy", "delete", "agent", "--yes"], { env: cliEnv(em) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`deleted deployment agent (${d.id})`);
    expect((await em.get(`/v2/deployments/${d.id}`)).status).toBe(404);

    const get = await runCli(["deploy", "get", "agent"], { env: cliEnv(em) });
    expect(get.code).toBe(4);
    const byId = await runCli(["deploy", "get", d.id], { env: cliEnv(em) });
    expect(byId.code).toBe(4);
  });

  it("-o id prints the deleted ID; -o json, yaml and ndjson print {id, name, deleted}", async () => {
    const em = await startTestEmulator();
    const a = await em.createDeployment("gitrepo", "a");
    const b = await em.createDeployment("gitrepo", "b");
    const c = await em.createDeployment("gitrepo", "c");
    const e = await em.createDeployment("gitrepo", "e");
    const env = cliEnv(em);

    const id = await runCli(["deploy", "delete", "a", "-y", "-o", "id"], { env });
    expect(id.code).toBe(0);
    expect(id.stdout).toBe(`${a.id}\n`);

    const json = await runCli(["deploy", "delete", b.id, "-y", "--json"], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ id: b.id, name: "b", deleted: true });

    const yaml = await runCli(["deploy", "delete", "c", "-y", "-o", "yaml"], { env });
    expect(parseYaml(yaml.stdout)).toEqual({ id: c.id, name: "c", deleted: true });

    const ndjson = await runCli(["deploy", "delete", "e", "-y", "-o", "ndjson"], { env });
    expect(ndjson.stdout).toBe(`${JSON.stringify({ id: e.id, name: "e", deleted: true })}\n`);
    expect(deletes(em)).toBe(4);
  });

  it("deletes only the deployment named", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo", "keep");
    await em.createDeployment("gitrepo", "drop");
    expect((await runCli(["deploy", "delete", "drop", "--yes"], { env: cliEnv(em) })).code).toBe(0);
    const list = await runCli(["deploy", "list", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(list.stdout).map((d: { name: string }) => d.name)).toEqual(["keep"]);
  });

  it("exits 4 for an unknown name or ID, without deleting anything", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("gitrepo", "agent");
    const byName = await runCli(["deploy", "delete", "ghost", "--yes"], { env: cliEnv(em) });
    expect(byName.code).toBe(4);
    expect(byName.stderr).toContain("no deployment named 'ghost'");
    const byId = await runCli(["deploy", "delete", randomUUID(), "--yes", "-o", "json"], { env: cliEnv(em) });
    expect(byId.code).toBe(4);
    expect(JSON.parse(byId.stderr).error.status).toBe(404);
    expect(deletes(em)).toBe(0);
  });

  it("a second delete of the same ID exits 4", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    expect((await runCli(["deploy", "delete", d.id, "--yes"], { env: cliEnv(em) })).code).toBe(0);
    expect((await runCli(["deploy", "delete", d.id, "--yes"], { env: cliEnv(em) })).code).toBe(4);
  });

  it("without --yes off a terminal: refuses (exit 2), naming --yes, and deletes nothing", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    const r = await runCli(["deploy", "delete", "agent"], { env: cliEnv(em) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--yes");
    expect(deletes(em)).toBe(0);
    expect((await em.get(`/v2/deployments/${d.id}`)).status).toBe(200);
  });

  it("on a terminal: asks, names the target, and deletes only on yes", async () => {
    const em = await startTestEmulator();
    const d = await em.createDeployment("gitrepo", "agent");
    const no = await runCli(["deploy", "delete", "agent"], {
      env: cliEnv(em, { NO_COLOR: "1" }),
      tty: true,
      stdin: "n\n",
    });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(`delete deployment agent (${d.id})`);
    expect(no.stderr).toContain("cancelled: nothing was changed");
    expect(deletes(em)).toBe(0);

    const yes = await runCli(["deploy", "delete", "agent"], {
      env: cliEnv(em, { NO_COLOR: "1" }),
      tty: true,
      stdin: "y\n",
    });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toBe("");
    expect(yes.stderr).toContain(`deleted deployment agent (${d.id})`);
    expect((await em.get(`/v2/deployments/${d.id}`)).status).toBe(404);
  });
});
