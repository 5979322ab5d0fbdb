// With no config file, loading the configuration must not load cosmiconfig (start-up cost).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, vi } from "vitest";

const loaded = vi.hoisted(() => ({ count: 0 }));
vi.mock("cosmiconfig", async (importOriginal) => {
  loaded.count++;
  return importOriginal();
});

const { loadConfigLayers } = await import("./files.js");

test("cosmiconfig is imported only when a config file exists", async () => {
  const home = mkdtempSync(join(tmpdir(), "cpctl-lazy-"));
  const cwd = join(home, "project");
  mkdirSync(cwd);
  const options = { cwd, homeDir: home, env: {}, warn: () => {} };
  await loadConfigLayers(options);
  await loadConfigLayers({ ...options, profileFlag: "local" });
  expect(loaded.count).toBe(0);
  writeFileSync(join(cwd, ".cpctlrc.json"), JSON.stringify({ profiles: { a: { output: "json" } } }));
  expect((await loadConfigLayers({ ...options, profileFlag: "a" })).profile).toBe("a");
  expect(loaded.count).toBe(1);
});
