// The temporary directories of an image push, and what is left of them after a run that could
// not clean up (kill -9, a power cut): an archive's unpacked tar and compressed layers can run
// to gigabytes, and an --image push's private docker or podman login holds the push token.
//
// Each is made by mkdtemp in the system's temporary directory (mode 700) as `cpctl-KIND-XXXXXX`,
// with a file naming its process (util/process-holder.ts). At the start of each image push,
// the directories of that pattern that are the user's own (lstat: a directory, not a link,
// owned by this user) and whose process is gone (it ran here and its PID is free) are removed.
// A directory whose process is running (a push going on beside this one), that ran in another
// PID namespace or host sharing the directory, or that names no process (a foreign one, or one
// whose process died between mkdtemp and writing the file) is left alone.
import {
  closeSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { READ_NO_FOLLOW } from "../upload/walked-file.js";
import { holderState, ownHolder, parseHolder } from "../util/process-holder.js";

/** What a directory holds: an archive's files, or docker's or podman's private login (the push token). */
export type TempKind = "image" | "registry-login";
const KINDS: readonly TempKind[] = ["image", "registry-login"];
/** mkdtemp's names: the prefix, then six letters and digits. */
const NAME = new RegExp(`^cpctl-(?:${KINDS.join("|")})-[A-Za-z0-9]{6}$`);
/** The file in each directory naming its process. */
export const OWNER_FILE = ".cpctl-owner";
/** An owner file is a line of JSON; anything longer is none of ours. */
const MAX_OWNER_BYTES = 4096;

/** A new private directory of this process, under the system's temporary directory. */
export function makeTempDir(kind: TempKind): string {
  const dir = mkdtempSync(join(tmpdir(), `cpctl-${kind}-`));
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify(ownHolder()), { mode: 0o600 });
  return dir;
}

/** Removes the directories of runs that are gone; how many it removed. */
export function removeStaleTempDirs(): number {
  const root = tmpdir();
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!NAME.test(name)) continue;
    const dir = join(root, name);
    if (!isOwnDirectory(dir) || !ownerGone(dir)) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed++;
    } catch {
      // Another run removing it too, or something in it not ours to remove: left as it is.
    }
  }
  return removed;
}

function isOwnDirectory(dir: string): boolean {
  try {
    const stats = lstatSync(dir);
    const uid = process.getuid?.();
    return stats.isDirectory() && (uid === undefined || stats.uid === uid);
  } catch {
    return false;
  }
}

/** Its owner file names a process that ran here and is gone. */
function ownerGone(dir: string): boolean {
  let fd: number;
  try {
    fd = openSync(join(dir, OWNER_FILE), READ_NO_FOLLOW);
  } catch {
    return false;
  }
  try {
    const buffer = Buffer.alloc(MAX_OWNER_BYTES);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const holder = parseHolder(buffer.subarray(0, length).toString("utf8"));
    if (!holder) return false;
    const { here, running } = holderState(holder);
    return here && !running;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
