import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { cliEnv, freshDir, runCli } from "../helpers/run-cli.js";

afterEach(closeTestEmulators);

describe("cpctl schema", () => {
  it("prints a JSON Schema of the deployment file with every request field", async () => {
    const r = await runCli(["schema"]);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(
      expect.arrayContaining(["name", "source", "source_config", "source_revision_config", "secrets"]),
    );
    expect(schema.properties.source.enum).toEqual([
      "gitrepo",
      "external_container",
      "internal_container",
      "internal_source",
    ]);
    expect(JSON.stringify(schema)).toContain("queue_cpu");
    expect(schema.additionalProperties).toBe(false);
  });

  it("a file that names the schema in `$schema` is accepted", async () => {
    const dir = freshDir("schema");
    writeFileSync(
      join(dir, "d.json"),
      JSON.stringify({ $schema: "./cpctl.schema.json", name: "s", source: "internal_container" }),
    );
    const r = await runCli(["deploy", "create", "-f", "d.json", "--dry-run", "-o", "json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).not.toHaveProperty("$schema");
  });
});

describe("listeners list", () => {
  it("lists the tenant's listeners in every format", async () => {
    const em = await startTestEmulator();
    const listeners = em.emulator.seed(em.tenantId).listeners;
    const json = await runCli(["listeners", "list", "-o", "json"], { env: cliEnv(em) });
    expect(JSON.parse(json.stdout)).toEqual(listeners);
    const ids = await runCli(["listeners", "list", "-o", "id"], { env: cliEnv(em) });
    expect(ids.stdout.trim().split("\n")).toEqual(listeners.map((l) => l.id));
    const tsv = await runCli(["listeners", "list"], { env: cliEnv(em) });
    expect(tsv.stdout.split("\n")[0]!.split("\t").slice(0, 4)).toEqual([
      listeners[0]!.id,
      "k8s",
      listeners[0]!.compute_id,
      listeners[0]!.compute_config.k8s_namespaces.join(","),
    ]);
  });
});
