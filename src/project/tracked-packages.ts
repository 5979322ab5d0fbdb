// Which of the packages the service tracks (model/tracked-packages.ts) a Python project
// depends on, and at what version, for the `tracked_packages` revision metadata that both
// public clients send and that a build from a repository records. The rules are theirs, so
// that the same project reports the same thing whichever way it is deployed:
// - the directories searched are the agent configuration's `dependencies` that are paths
//   inside the project (default: the configuration's own directory);
// - in each, uv.lock's resolved version wins, then a specifier in pyproject.toml or
//   requirements.txt (`google-adk>=1.0` gives `>=1.0`), then a bare mention or an extra
//   (`unknown`).
// Each file is read only when it is a regular file, and at most MAX_READ_BYTES of it.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { join, posix, relative, resolve } from "node:path";
import { TRACKED_PACKAGES } from "../model/tracked-packages.js";
import type { AgentConfig } from "./agent-config.js";

const MAX_READ_BYTES = 5 * 1024 * 1024;

/** `["google-adk:1.2.3"]`, in the order of TRACKED_PACKAGES; empty when none is found. */
export async function detectTrackedPackages(directory: string, config: AgentConfig): Promise<string[]> {
  const base = posix.dirname(config.path);
  const found = new Map<string, string>();
  for (const path of config.dependencies) {
    if (TRACKED_PACKAGES.every((name) => found.has(name))) break;
    const candidate = resolve(directory, base, path);
    const inside = relative(directory, candidate);
    if (inside.startsWith("..") || resolve(directory, inside) !== candidate) continue;
    if (!(await isDirectory(candidate))) continue;
    const [lock, pyproject, requirements] = await Promise.all(
      ["uv.lock", "pyproject.toml", "requirements.txt"].map((name) => readIfFile(join(candidate, name))),
    );
    for (const name of TRACKED_PACKAGES) {
      if (found.has(name)) continue;
      const version = versionOf(name, lock ?? null, [pyproject ?? null, requirements ?? null]);
      if (version !== null) found.set(name, version);
    }
  }
  return TRACKED_PACKAGES.filter((name) => found.has(name)).map((name) => `${name}:${found.get(name)}`);
}

/** The version of `name` the files give, or null when they do not mention it. */
export function versionOf(
  name: string,
  lock: string | null,
  manifests: readonly (string | null)[],
): string | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
  if (lock !== null) {
    const locked = new RegExp(`name\\s*=\\s*"(${escaped})"\\s*\\n\\s*version\\s*=\\s*"([^"]+)"`, "g");
    for (const match of lock.matchAll(locked)) return match[2]!;
  }
  const specified = new RegExp(
    `(?<![a-zA-Z0-9_-])(${escaped})(?:\\[[^\\]]*\\])?\\s*((?:(?:==|>=|<=|~=|!=|>|<)\\s*[\\w.*]+\\s*,?\\s*)+)`,
  );
  const bare = new RegExp(`(?<![a-zA-Z0-9_-])(${escaped})(?:\\[[^\\]]*\\])?\\s*[,"'\\n]`);
  for (const text of manifests) {
    if (text === null) continue;
    const match = specified.exec(text);
    if (match) return match[2]!.trim().replace(/,+$/, "").trim();
    if (bare.test(text) || inExtras(text, name)) return "unknown";
  }
  return null;
}

/** `name` listed in some `[a, b]` bracket (an extra, or a list of optional groups). */
function inExtras(text: string, name: string): boolean {
  for (const match of text.matchAll(/\[([a-zA-Z0-9_.\- ,\t]+)\]/g)) {
    if (match[1]!.split(",").some((token) => token.trim() === name)) return true;
  }
  return false;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The file's text when it is a regular file (not a link, FIFO or device); at most MAX_READ_BYTES. */
async function readIfFile(path: string): Promise<string | undefined> {
  try {
    if (!(await lstat(path)).isFile()) return undefined;
    // Non-blocking: a FIFO swapped in after the check must not hold the open.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) return undefined;
      const buffer = Buffer.allocUnsafe(Math.min(stats.size, MAX_READ_BYTES));
      let length = 0;
      while (length < buffer.length) {
        const read = readSync(fd, buffer, length, buffer.length - length, null);
        if (read === 0) break;
        length += read;
      }
      return buffer.toString("utf8", 0, length);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
