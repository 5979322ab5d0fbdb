// Time that grows with the input, not with its square. A deployment file with many unknown
// keys (each one a problem whose line is looked up) and a large --secrets-file (each secret
// merged by name) took seconds: a 568 KB JSON file 16 s to reject. The check runs the same
// generated input at two sizes, 4x apart: linear work takes about 4x as long, quadratic 16x.
// Each size is timed as the best of a few runs, the two sizes in turn, so that a busy
// machine's pauses count less and alike.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshDir, runCli } from "../helpers/run-cli.js";
import { report } from "./helpers.js";

const BASE = 4_000;
const RUNS = 4;
/** Between linear (4) and quadratic (16), with room for noise. */
const MAX_RATIO = 9;

const dir = freshDir("linear");
const DRY_CREATE = ["deploy", "create", "--dry-run", "--base-url", "http://127.0.0.1:9"];

async function timed(args: string[], expectedCode: number): Promise<number> {
  const start = performance.now();
  const r = await runCli(args);
  const elapsed = performance.now() - start;
  expect(r.code, r.stderr.slice(0, 500)).toBe(expectedCode);
  return elapsed;
}

async function ratio(
  label: string,
  make: (n: number) => string[],
  expectedCode: number,
  base = BASE,
): Promise<number> {
  // The two sizes alternate, so that a busy spell of the machine (other test files, other
  // processes) weighs on both alike; each keeps its best time.
  let small = Number.POSITIVE_INFINITY;
  let large = Number.POSITIVE_INFINITY;
  for (let run = 0; run < RUNS; run++) {
    small = Math.min(small, await timed(make(base), expectedCode));
    large = Math.min(large, await timed(make(4 * base), expectedCode));
  }
  report(label, {
    small_ms: Math.round(small),
    large_ms: Math.round(large),
    ratio: (large / small).toFixed(1),
  });
  return large / small;
}

describe("time grows linearly with the input", () => {
  it("a JSON deployment file with many unknown keys is rejected, every key on its line", async () => {
    const file = (n: number) => {
      const body: Record<string, unknown> = { name: "n", source: "internal_container" };
      body.source_revision_config = { image_uri: "registry.example.com/a:1" };
      for (let i = 0; i < n; i++) body[`unknown_field_${i}`] = i;
      const path = join(dir, `unknown-${n}.json`);
      writeFileSync(path, JSON.stringify(body, null, 1));
      return [...DRY_CREATE, "-f", path];
    };
    const last = await runCli(file(BASE));
    expect(last.stderr).toContain(
      `unknown-${BASE}.json:${BASE + 6}: unknown_field_${BASE - 1}: is not a known field`,
    );
    expect(await ratio("unknown keys", file, 2, 2 * BASE)).toBeLessThan(MAX_RATIO);
  });

  it("a large --secrets-file is merged by name", async () => {
    const secrets = (n: number) => {
      const path = join(dir, `secrets-${n}.env`);
      writeFileSync(
        path,
        Array.from({ length: n }, (_, i) => `SECRET_${i}=value-${i}-of-the-secret\n`).join(""),
      );
      return [
        ...DRY_CREATE,
        "--name",
        "n",
        "--source",
        "internal_container",
        "--image-uri",
        "r.example.com/a:1",
        "--secrets-file",
        path,
      ];
    };
    expect(await ratio("secrets file", secrets, 0, 4 * BASE)).toBeLessThan(MAX_RATIO);
  });

  it("a file with thousands of broken secrets: each problem checked against the others, each value redacted", async () => {
    const file = (n: number) => {
      const secrets = Array.from({ length: n }, (_, i) => ({
        name: `S${i % (n / 2)}`,
        value: `v-${i}-x`,
        extra: 1,
      }));
      const body = { name: "n", source: "internal_container", secrets };
      const path = join(dir, `broken-${n}.json`);
      writeFileSync(
        path,
        JSON.stringify({ ...body, source_revision_config: { image_uri: "r.example.com/a:1" } }),
      );
      return [...DRY_CREATE, "-f", path, "-o", "json"];
    };
    expect(await ratio("broken secrets", file, 2, BASE / 2)).toBeLessThan(MAX_RATIO);
  });

  it("a flow-style YAML file with many keys (the YAML library's duplicate check was quadratic)", async () => {
    const file = (n: number) => {
      const keys = Array.from({ length: n }, (_, i) => `k${i}: ${i}`).join(", ");
      const path = join(dir, `flow-${n}.yaml`);
      writeFileSync(path, `name: n\nsource: internal_container\nextra: {${keys}}\n`);
      return [...DRY_CREATE, "-f", path];
    };
    expect(await ratio("flow yaml", file, 2)).toBeLessThan(MAX_RATIO);
    // Repeated keys are still refused, with the line of the repeat.
    const path = join(dir, "twice.yaml");
    writeFileSync(path, "name: a\nsource: internal_container\nname: b\n");
    const twice = await runCli([...DRY_CREATE, "-f", path]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`${path}:3: not valid YAML (Map keys must be unique)`);
  });
});
