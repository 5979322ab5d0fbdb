// The package's licence and its bundled libraries' notices. cpctl is MIT (LICENSE); its bundle
// inlines MIT, ISC and other permissively licensed libraries, whose licences ask that their
// copyright and permission notices go with every copy: the build writes them to
// dist/THIRD-PARTY-NOTICES.txt, which the package ships. This test finds what the bundle holds
// on its own, from the source maps of the build the global setup made (each names the files
// that went into it), and checks every library among them against its own licence file.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dist = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;

/** The node_modules folders whose files went into dist/, from its source maps. */
function bundledPackageDirs(): Set<string> {
  const dirs = new Set<string>();
  const maps = [
    ...readdirSync(dist).map((name) => join(dist, name)),
    ...readdirSync(join(dist, "chunks")).map((name) => join(dist, "chunks", name)),
  ].filter((file) => file.endsWith(".js.map"));
  expect(maps.length).toBeGreaterThan(10);
  for (const map of maps) {
    const { sources } = JSON.parse(readFileSync(map, "utf8")) as { sources: string[] };
    for (const source of sources) {
      const at = source.lastIndexOf("node_modules/");
      if (at < 0) continue;
      const rest = source.slice(at + "node_modules/".length).split("/");
      const name = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
      dirs.add(join(root, source.slice(0, at).replace(/^(\.\.\/)+/, ""), "node_modules", name));
    }
  }
  return dirs;
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$/i;

describe("the licence", () => {
  it("LICENSE is the MIT licence, as package.json says", () => {
    const text = readFileSync(join(root, "LICENSE"), "utf8");
    expect(pkg.license).toBe("MIT");
    expect(text).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(text).toContain("Permission is hereby granted, free of charge");
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });

  it("dist/THIRD-PARTY-NOTICES.txt holds, for every library in the bundle, its name, version, licence and licence text", () => {
    const notices = readFileSync(join(dist, "THIRD-PARTY-NOTICES.txt"), "utf8");
    const dirs = bundledPackageDirs();
    // The runtime libraries package.json's devDependencies name, and what they bring.
    for (const name of ["commander", "zod", "yaml", "ora", "picocolors", "undici"])
      expect([...dirs].some((dir) => dir.endsWith(`node_modules/${name}`))).toBe(true);
    for (const dir of dirs) {
      const info = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string;
        version: string;
        license?: string;
      };
      expect(notices, `${info.name} is in the bundle`).toContain(
        `${info.name} ${info.version} (${info.license})`,
      );
      const files = readdirSync(dir).filter((name) => LICENCE_FILE.test(name));
      for (const file of files) {
        const text = readFileSync(join(dir, file), "utf8").trim();
        expect(notices, `${info.name}'s ${file}`).toContain(text);
      }
      if (files.length === 0) expect(notices).toContain(`${info.name} ${info.version}`);
    }
    // Nothing that is not in the bundle: the devDependencies that only build and test.
    for (const name of ["esbuild", "vitest", "typescript", "fast-check", "execa"])
      expect(notices).not.toMatch(new RegExp(`^${name} \\d`, "m"));
  });
});

describe("package.json for the registry", () => {
  it("names the repository, its home page, where to report bugs, and keywords", () => {
    expect(pkg.repository).toEqual({ type: "git", url: "git+https://github.com/cpctl/cpctl.git" });
    expect(pkg.homepage).toBe("https://github.com/cpctl/cpctl#readme");
    expect(pkg.bugs).toEqual({ url: "https://github.com/cpctl/cpctl/issues" });
    expect(pkg.keywords).toEqual(expect.arrayContaining(["cli", "deployment", "github-actions"]));
    expect(pkg.files).toEqual(expect.arrayContaining(["dist/THIRD-PARTY-NOTICES.txt"]));
    expect(existsSync(join(root, "LICENSE"))).toBe(true);
  });

  it("action.yml's example uses the same repository", () => {
    const action = readFileSync(join(root, "action.yml"), "utf8");
    const uses = [...action.matchAll(/uses: ([\w.-]+\/cpctl)@/g)].map((match) => match[1]);
    expect(uses.length).toBeGreaterThan(0);
    for (const repository of uses) expect(repository).toBe("cpctl/cpctl");
  });
});
