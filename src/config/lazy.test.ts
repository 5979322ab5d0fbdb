// The YAML library is loaded only for a YAML config file: with none, or a JSON one, loading
// the configuration does not load it (start-up cost).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, vi } from "vitest";

const loaded = vi.hoisted(() => ({ count: 0 }));
vi.mock("yaml", async (importOriginal) => {
  loaded.count++;
  return importOriginal();
});

const { loadConfigLayers } = await import("./files.js");

test("the YAML library is imported only when a YAML config file exists", async () => {
  const home = mkdtempSync(join(tmpdir(), "cpctl-lazy-"));
  const cwd = join(home, "project");
  mkdirSync(cwd);
  const options = { cwd, homeDir: home, env: {}, warn: () => {} };
  await loadConfigLayers(options);
  await loadConfigLayers({ ...options, profileFlag: "local" });
  expect(loaded.count).toBe(0);
  writeFileSync(join(cwd, ".cpctlrc.json"), JSON.stringify({ profiles: { a: { output: "json" } } }));
  expect((await loadConfigLayers({ ...options, profileFlag: "a" })).profile).toBe("a");
  expect(loaded.count).toBe(0);
  rmSync(join(cwd, ".cpctlrc.json"));
  writeFileSync(join(cwd, ".cpctlrc.yaml"), "profiles:\n  b:\n    output: yaml\n");
  expect((await loadConfigLayers({ ...options, profileFlag: "b" })).profile).toBe("b");
  expect(loaded.count).toBe(1);
});
