import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { UsageError } from "../errors.js";
import { setProfileValue } from "./write.js";

function paths() {
  const home = mkdtempSync(join(tmpdir(), "cpctl-write-"));
  const dir = join(home, ".config", "cpctl");
  return { home, dir, file: join(dir, "config.yaml") };
}

describe("setProfileValue", () => {
  test("creates the file (mode 0600) and its directory", async () => {
    const { dir, file } = paths();
    const result = await setProfileValue(file, "prod", "baseUrl", "https://api.example.com");
    expect(result).toEqual({ path: file, created: true, mode: 0o600 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, "utf8")).toBe("profiles:\n  prod:\n    baseUrl: https://api.example.com\n");
  });

  test("keeps the rest of the file: other profiles, keys, comments and order", async () => {
    const { dir, file } = paths();
    mkdirSync(dir, { recursive: true });
    const before = [
      "# my cpctl profiles",
      "defaultProfile: dev",
      "profiles:",
      "  dev:",
      "    baseUrl: http://127.0.0.1:8124 # the emulator",
      "  prod:",
      "    baseUrl: https://old.example.com",
      "    confirm: true",
      "",
    ].join("\n");
    writeFileSync(file, before, { mode: 0o600 });
    const result = await setProfileValue(file, "prod", "baseUrl", "https://new.example.com");
    expect(result.created).toBe(false);
    await setProfileValue(file, "prod", "apiKey", `\${env:PROD_KEY}`);
    await setProfileValue(file, "stage", "confirm", false);
    expect(readFileSync(file, "utf8")).toBe(
      [
        "# my cpctl profiles",
        "defaultProfile: dev",
        "profiles:",
        "  dev:",
        "    baseUrl: http://127.0.0.1:8124 # the emulator",
        "  prod:",
        "    baseUrl: https://new.example.com",
        "    confirm: true",
        `    apiKey: \${env:PROD_KEY}`,
        "  stage:",
        "    confirm: false",
        "",
      ].join("\n"),
    );
    // No temporary file is left behind.
    expect(readdirSync(dir)).toEqual(["config.yaml"]);
  });

  test("keeps an existing file's mode", async () => {
    const { dir, file } = paths();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, "profiles: {}\n");
    chmodSync(file, 0o640);
    const result = await setProfileValue(file, "a", "output", "json");
    expect(result.mode).toBe(0o640);
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  test("fills an empty profile or an empty profiles key", async () => {
    const { dir, file } = paths();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, "profiles:\n  prod:\n");
    await setProfileValue(file, "prod", "output", "yaml");
    expect(readFileSync(file, "utf8")).toBe("profiles:\n  prod:\n    output: yaml\n");
    writeFileSync(file, "profiles:\n");
    await setProfileValue(file, "prod", "output", "yaml");
    expect(readFileSync(file, "utf8")).toBe("profiles:\n  prod:\n    output: yaml\n");
  });

  test("writes through a symbolic link instead of replacing it", async () => {
    const { home, dir, file } = paths();
    mkdirSync(dir, { recursive: true });
    const real = join(home, "dotfiles.yaml");
    writeFileSync(real, "profiles: {}\n", { mode: 0o600 });
    symlinkSync(real, file);
    const result = await setProfileValue(file, "a", "output", "id");
    expect(result.path).toBe(real);
    expect(readFileSync(real, "utf8")).toContain("output: id");
    expect(readFileSync(file, "utf8")).toContain("output: id");
  });

  test("refuses to rewrite a broken or oddly shaped file", async () => {
    const { dir, file } = paths();
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, "profiles:\n  prod: [\n");
    await expect(setProfileValue(file, "prod", "output", "json")).rejects.toThrow(UsageError);
    expect(readFileSync(file, "utf8")).toBe("profiles:\n  prod: [\n");
    writeFileSync(file, "profiles:\n  prod: https://x\n");
    await expect(setProfileValue(file, "prod", "output", "json")).rejects.toThrow(
      /profiles.prod must be a mapping/,
    );
    writeFileSync(file, "- a\n");
    await expect(setProfileValue(file, "prod", "output", "json")).rejects.toThrow(/must be a mapping/);
  });
});
