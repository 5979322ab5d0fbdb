// The tracked packages a project depends on: the public clients' rules (their own test cases).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freshDir } from "../../test/helpers/run-cli.js";
import { trackedPackagesIssues } from "../model/tracked-packages.js";
import { detectTrackedPackages, versionOf } from "./tracked-packages.js";

function project(files: Record<string, string>): string {
  const root = freshDir("tracked");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const detect = (files: Record<string, string>, dependencies = ["."], path = "langgraph.json") =>
  detectTrackedPackages(project({ [path]: "{}", ...files }), { path, dependencies });

describe("detectTrackedPackages", () => {
  it.each([
    [
      {
        "uv.lock": 'name = "google-adk"\nversion = "1.2.3"\n',
        "pyproject.toml": 'dependencies = ["google-adk>=0.5"]',
      },
      ["google-adk:1.2.3"],
    ],
    [{ "pyproject.toml": 'dependencies = ["google-adk>=0.5,<2"]' }, ["google-adk:>=0.5,<2"]],
    [{ "requirements.txt": "google-adk==1.0.0\n" }, ["google-adk:==1.0.0"]],
    [{ "requirements.txt": "google-adk\nother-pkg==1.0\n" }, ["google-adk:unknown"]],
    [
      { "pyproject.toml": 'dependencies = ["deployments-wrap-sdk[google-adk]>=0.0.1"]' },
      ["google-adk:unknown"],
    ],
    [{ "pyproject.toml": 'dependencies = ["langgraph>=0.2"]' }, []],
    [{ "requirements.txt": "not-google-adk==1.0\n" }, []],
  ])("%j gives %j", async (files, expected) => {
    expect(await detect(files)).toEqual(expected);
  });

  it("searches the dependencies in order, only inside the project, only directories", async () => {
    expect(
      await detect({ "second/uv.lock": 'name = "google-adk"\nversion = "2.0.0"\n', "first/x": "" }, [
        "first",
        "second",
      ]),
    ).toEqual(["google-adk:2.0.0"]);
    const outside = freshDir("outside");
    writeFileSync(join(outside, "uv.lock"), 'name = "google-adk"\nversion = "9.9.9"\n');
    expect(await detect({}, [outside, "../../"])).toEqual([]);
    // Relative to the configuration's own directory.
    expect(await detect({ "svc/requirements.txt": "google-adk==3\n" }, ["."], "svc/langgraph.json")).toEqual([
      "google-adk:==3",
    ]);
  });

  it("reads at most 5 MiB of a file", async () => {
    const padded = `${"x".repeat(6 * 1024 * 1024)}\nname = "google-adk"\nversion = "1.0.0"\n`;
    expect(await detect({ "uv.lock": padded })).toEqual([]);
  });

  it("what it detects always passes the service's check", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const version = versionOf("google-adk", null, [`google-adk${text}\n`]);
        if (version !== null) expect(trackedPackagesIssues([`google-adk:${version}`])).toEqual([]);
      }),
    );
  });
});
