import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { projectFileCandidates, userConfigPath } from "./paths.js";

/** The nearest place a project file exists (config/files.ts then reads it, or passes over it). */
const findProjectFile = (cwd: string, home: string) => projectFileCandidates(cwd, home)[0] ?? null;

function tree(): { root: string; home: string; deep: string } {
  const root = mkdtempSync(join(tmpdir(), "cpctl-paths-"));
  const home = join(root, "home", "me");
  const deep = join(home, "src", "app", "pkg");
  mkdirSync(deep, { recursive: true });
  return { root, home, deep };
}

describe("userConfigPath", () => {
  test("is under ~/.config by default, and under an absolute XDG_CONFIG_HOME when set", () => {
    expect(userConfigPath("/home/me", {})).toBe("/home/me/.config/cpctl/config.yaml");
    expect(userConfigPath("/home/me", { XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/cpctl/config.yaml");
  });

  test("ignores an empty or relative XDG_CONFIG_HOME", () => {
    expect(userConfigPath("/home/me", { XDG_CONFIG_HOME: "" })).toBe("/home/me/.config/cpctl/config.yaml");
    expect(userConfigPath("/home/me", { XDG_CONFIG_HOME: "rel" })).toBe("/home/me/.config/cpctl/config.yaml");
  });
});

describe("projectFileCandidates", () => {
  test("finds nothing in an empty tree", () => {
    const { home, deep } = tree();
    expect(findProjectFile(deep, home)).toBeNull();
  });

  test("the nearest directory wins, and within one directory the first name", () => {
    const { home, deep } = tree();
    writeFileSync(join(home, "src", ".cpctlrc.json"), "{}");
    expect(findProjectFile(deep, home)).toBe(join(home, "src", ".cpctlrc.json"));
    writeFileSync(join(home, "src", "app", "cpctl.config.mjs"), "export default {}");
    writeFileSync(join(home, "src", "app", ".cpctlrc.yaml"), "");
    expect(findProjectFile(deep, home)).toBe(join(home, "src", "app", ".cpctlrc.yaml"));
    writeFileSync(join(home, "src", "app", ".cpctlrc"), "");
    expect(findProjectFile(deep, home)).toBe(join(home, "src", "app", ".cpctlrc"));
  });

  test("a package.json counts only with a cpctl field", () => {
    const { home, deep } = tree();
    writeFileSync(join(deep, "package.json"), JSON.stringify({ name: "x" }));
    writeFileSync(join(home, "src", "package.json"), "{ not json");
    expect(findProjectFile(deep, home)).toBeNull();
    writeFileSync(
      join(home, "src", "app", "package.json"),
      JSON.stringify({ name: "y", cpctl: { profiles: {} } }),
    );
    expect(findProjectFile(deep, home)).toBe(join(home, "src", "app", "package.json"));
  });

  test("stops at the home directory (which it searches) when the start is inside it", () => {
    const { root, home, deep } = tree();
    writeFileSync(join(root, "home", ".cpctlrc"), "");
    expect(findProjectFile(deep, home)).toBeNull();
    writeFileSync(join(home, ".cpctlrc"), "");
    expect(findProjectFile(deep, home)).toBe(join(home, ".cpctlrc"));
  });

  test("walks to the root when the start is outside the home directory", () => {
    const { root, home } = tree();
    const elsewhere = join(root, "srv", "app");
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(root, ".cpctlrc.yaml"), "");
    expect(findProjectFile(elsewhere, home)).toBe(join(root, ".cpctlrc.yaml"));
  });
});
