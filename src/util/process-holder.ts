// Who a file on disk belongs to, as a running process: its PID, host and PID namespace, written
// by the process itself; and the one rule for telling, later, whether that process is gone.
// A process that ran here (same host and PID namespace) and whose PID is free is gone; one that
// ran elsewhere (another container sharing the directory, another host sharing the home)
// cannot be checked, and a PID in use may be it or a process that reused it: neither is taken
// for gone. Used by the numbered-file lock (numbered-lock.ts) and by the temporary directories
// an image push leaves when it is killed (image/temp-dirs.ts).
import { readlinkSync } from "node:fs";
import { hostname } from "node:os";

export interface ProcessHolder {
  pid: number;
  host: string;
  /** /proc/self/ns/pid ("pid:[4026531836]"); null off Linux. */
  pid_ns: string | null;
}

export function ownHolder(): ProcessHolder {
  let pidNs: string | null = null;
  try {
    pidNs = readlinkSync("/proc/self/ns/pid");
  } catch {
    // Not Linux: the host alone says where a process ran.
  }
  return { pid: process.pid, host: hostname(), pid_ns: pidNs };
}

/** The holder a file's JSON names, or null when it names none. */
export function parseHolder(text: string): ProcessHolder | null {
  try {
    const value = JSON.parse(text) as Partial<ProcessHolder> | null;
    if (!Number.isInteger(value?.pid) || typeof value?.host !== "string") return null;
    return { pid: value.pid!, host: value.host, pid_ns: value.pid_ns ?? null };
  } catch {
    return null;
  }
}

/** `here`: it ran where its PID can be checked; `running`: here, and its PID is in use. */
export function holderState(holder: ProcessHolder): { here: boolean; running: boolean } {
  const own = ownHolder();
  const here = holder.host === own.host && holder.pid_ns === own.pid_ns;
  return { here, running: here && pidInUse(holder.pid) };
}

function pidInUse(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
