// An image directory read through no link, also when one is swapped in after the check: what
// was checked is what is read, or the read stops naming the file.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { DirectoryFiles } from "./directory.js";

const dir = () => mkdtempSync(join(tmpdir(), "cpctl-image-dir-test-"));

function planted() {
  const root = dir();
  mkdirSync(join(root, "blobs", "sha256"), { recursive: true });
  writeFileSync(join(root, "blobs", "sha256", "a"), "inside");
  const outside = dir();
  mkdirSync(join(outside, "sha256"));
  writeFileSync(join(outside, "sha256", "a"), "SECRET");
  writeFileSync(join(outside, "secret"), "SECRET");
  return { root, outside, files: new DirectoryFiles(root, "./oci") };
}

async function streamed(file: { stream(): NodeJS.ReadableStream }): Promise<string> {
  let text = "";
  for await (const chunk of file.stream()) text += String(chunk);
  return text;
}

describe("an image directory", () => {
  it("reads a plain file, and says null for one that is not there", async () => {
    const { files } = planted();
    const file = files.file("blobs/sha256/a")!;
    expect(file.read(0, file.size).toString()).toBe("inside");
    expect(await streamed(file)).toBe("inside");
    expect(files.file("blobs/sha256/b")).toBeNull();
    expect(files.file("../etc/passwd")).toBeNull();
  });

  it("a file swapped for a link after the check: the read stops, naming it", async () => {
    const { root, outside, files } = planted();
    const file = files.file("blobs/sha256/a")!;
    rmSync(join(root, "blobs", "sha256", "a"));
    symlinkSync(join(outside, "secret"), join(root, "blobs", "sha256", "a"));
    expect(() => file.read(0, file.size)).toThrow(UsageError);
    expect(() => file.read(0, file.size)).toThrow(/blobs\/sha256\/a is a symbolic link/);
    expect(() => file.stream()).toThrow(/symbolic link/);
  });

  it("a directory on the way swapped for a link after the check: the read stops", () => {
    const { root, outside, files } = planted();
    const file = files.file("blobs/sha256/a")!;
    renameSync(join(root, "blobs"), join(root, "old-blobs"));
    symlinkSync(outside, join(root, "blobs"));
    expect(() => file.read(0, file.size)).toThrow(
      /blobs is a symbolic link \(on the way to blobs\/sha256\/a\)/,
    );
  });

  it("a file replaced by another one (same name, same size) after the check: the read stops", () => {
    const { root, files } = planted();
    const file = files.file("blobs/sha256/a")!;
    writeFileSync(join(root, "next"), "INSIDE");
    renameSync(join(root, "next"), join(root, "blobs", "sha256", "a"));
    expect(() => file.read(0, file.size)).toThrow(/was replaced or changed while cpctl read it/);
  });
});
