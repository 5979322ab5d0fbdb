import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BLOCK } from "../util/tar-fields.js";
import { readTar } from "../util/untar.js";
import { endOfArchive, entryHeader, FIXED_MTIME, padding, splitName, type TarEntry } from "./tar.js";

/** An archive of in-memory files, as pack.ts lays it out. */
function archive(files: { entry: TarEntry; content?: Buffer }[]): Buffer {
  const parts: Buffer[] = [];
  for (const { entry, content } of files) {
    parts.push(entryHeader(entry));
    if (entry.type === "file") parts.push(content ?? Buffer.alloc(0), padding(entry.size));
  }
  parts.push(endOfArchive());
  return Buffer.concat(parts);
}

function file(path: string, text: string, mode = 0o644) {
  const content = Buffer.from(text);
  return { entry: { path, type: "file" as const, mode, size: content.length }, content };
}

function dir(path: string) {
  return { entry: { path, type: "directory" as const, mode: 0o755, size: 0 } };
}

/** Lists and extracts with the system's GNU tar. */
function systemTar(tarball: Buffer): { listing: string[]; root: string } {
  const root = mkdtempSync(join(tmpdir(), "cpctl-untar-"));
  const archivePath = join(root, "archive.tar.gz");
  writeFileSync(archivePath, gzipSync(tarball));
  const listing = execFileSync("tar", ["-tzf", archivePath], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  mkdirSync(join(root, "out"));
  execFileSync("tar", ["-xzf", archivePath, "-C", join(root, "out")]);
  return { listing, root: join(root, "out") };
}

describe("splitName", () => {
  it("keeps names of up to 100 bytes whole", () => {
    const name = "a".repeat(100);
    expect(splitName(name)).toEqual({ name, prefix: "" });
  });

  it("splits a longer name at the last slash that fits the prefix", () => {
    const prefix = `${"p".repeat(60)}/${"q".repeat(60)}`;
    expect(splitName(`${prefix}/file.txt`)).toEqual({ name: "file.txt", prefix });
  });

  it("keeps a directory's trailing slash in the name", () => {
    const prefix = "d".repeat(120);
    expect(splitName(`${prefix}/sub/`)).toEqual({ name: "sub/", prefix });
  });

  it("gives up when no split fits", () => {
    expect(splitName(`${"x".repeat(101)}`)).toBeNull();
    expect(splitName(`${"p".repeat(156)}/f`)).toBeNull();
    expect(splitName(`p/${"n".repeat(101)}`)).toBeNull();
  });
});

describe("entryHeader", () => {
  it("writes a valid ustar header with fixed owner and mtime", () => {
    const header = entryHeader({ path: "src/app.py", type: "file", mode: 0o755, size: 1234 });
    expect(header.length).toBe(BLOCK);
    expect(header.subarray(257, 263).toString("ascii")).toBe("ustar\0");
    expect(header.subarray(263, 265).toString("ascii")).toBe("00");
    const [entry] = readTar(Buffer.concat([header, Buffer.alloc(1234), padding(1234), endOfArchive()]));
    expect(entry).toMatchObject({
      path: "src/app.py",
      type: "0",
      mode: 0o755,
      size: 1234,
      mtime: FIXED_MTIME,
      uid: 0,
      gid: 0,
    });
  });

  it("uses a PAX header for a path ustar cannot hold, and for non-ASCII names", () => {
    expect(entryHeader({ path: "x".repeat(150), type: "file", mode: 0o644, size: 0 }).length).toBe(3 * BLOCK);
    expect(entryHeader({ path: "café.txt", type: "file", mode: 0o644, size: 0 }).length).toBe(3 * BLOCK);
    expect(entryHeader({ path: `${"d".repeat(120)}/file`, type: "file", mode: 0o644, size: 0 }).length).toBe(
      BLOCK,
    );
  });

  it("refuses paths that are not clean relative paths", () => {
    for (const path of ["", "/etc/passwd", "a/../b", "./a", "a//b", "a/"]) {
      expect(() => entryHeader({ path, type: "file", mode: 0o644, size: 0 })).toThrow(/clean relative path/);
    }
  });
});

describe("archives", () => {
  const longDir = `${"deep/".repeat(25)}er`; // 127 characters: needs the prefix field
  const veryLong = `${"segment-".repeat(30)}/${"n".repeat(120)}.txt`; // needs PAX
  const files = [
    dir("src"),
    file("src/main.py", "print('hi')\n"),
    file("run.sh", "#!/bin/sh\necho ok\n", 0o755),
    dir(longDir),
    file(`${longDir}/leaf.txt`, "leaf"),
    file(veryLong, "long"),
    file("ünïcödé/naïve.txt", "utf8 name"),
    file("empty.txt", ""),
    file("block.bin", "x".repeat(BLOCK)),
  ];

  it("round-trips through our reader", () => {
    const entries = readTar(archive(files));
    expect(entries.map((e) => e.path)).toEqual([
      "src/",
      "src/main.py",
      "run.sh",
      `${longDir}/`,
      `${longDir}/leaf.txt`,
      veryLong,
      "ünïcödé/naïve.txt",
      "empty.txt",
      "block.bin",
    ]);
    expect(entries.find((e) => e.path === "run.sh")?.mode).toBe(0o755);
    expect(entries.find((e) => e.path === veryLong)?.content.toString()).toBe("long");
    expect(entries.find((e) => e.path === "block.bin")?.size).toBe(BLOCK);
  });

  it("is read by the system tar: names, long paths, contents and modes", () => {
    const { listing, root } = systemTar(archive(files));
    expect(listing).toEqual([
      "src/",
      "src/main.py",
      "run.sh",
      `${longDir}/`,
      `${longDir}/leaf.txt`,
      veryLong,
      "ünïcödé/naïve.txt",
      "empty.txt",
      "block.bin",
    ]);
    expect(readFileSync(join(root, "src/main.py"), "utf8")).toBe("print('hi')\n");
    expect(readFileSync(join(root, longDir, "leaf.txt"), "utf8")).toBe("leaf");
    expect(readFileSync(join(root, veryLong), "utf8")).toBe("long");
    expect(readFileSync(join(root, "ünïcödé/naïve.txt"), "utf8")).toBe("utf8 name");
    const verbose = execFileSync("tar", ["-tvzf", "-"], {
      input: gzipSync(archive(files)),
      encoding: "utf8",
      env: { ...process.env, TZ: "UTC" },
    });
    expect(verbose).toMatch(/^-rwxr-xr-x 0\/0 .* 1985-10-26 08:15 run\.sh$/m);
    expect(verbose).toMatch(/^drwxr-xr-x .* src\/$/m);
  });
});
