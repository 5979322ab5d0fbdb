// Who a process is, in terms that survive PID reuse and PID namespaces, for the locks of the
// emulator's state file (emulator/state-lock.ts) and of the user config file (config/lock.ts).
// A PID alone proves nothing: in a container the emulator is often PID 1,
// and PID 1 is always alive, in every namespace. So a lock records, besides the PID, the
// host, the kernel's boot ID, the PID namespace and the process start time; another process
// can judge the PID only when it shares boot and namespace, and a PID in use by a process
// that started at another time is not the one that wrote the lock.
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

export interface ProcessIdentity {
  pid: number;
  host: string;
  /** /proc/sys/kernel/random/boot_id: changes on every boot. Null off Linux. */
  boot_id: string | null;
  /** The PID namespace, as /proc/self/ns/pid names it ("pid:[4026531836]"). Null off Linux. */
  pid_ns: string | null;
  /** Start time in clock ticks since boot (/proc/PID/stat field 22). Null off Linux. */
  start_ticks: string | null;
}

export function ownIdentity(): ProcessIdentity {
  return {
    pid: process.pid,
    host: hostname(),
    boot_id: readOrNull(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()),
    pid_ns: readOrNull(() => readlinkSync("/proc/self/ns/pid")),
    start_ticks: processStartTicks(process.pid),
  };
}

/** Start time of a process of this namespace, or null when there is none (or no /proc). */
export function processStartTicks(pid: number): string | null {
  return readOrNull(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces or ")": count from
    // the last ")". Field 22 is then the 20th after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  });
}

/** Whether this process can look `other`'s PID up: same host, same boot, same PID namespace. */
export function sharesPidSpace(other: ProcessIdentity, own: ProcessIdentity): boolean {
  return other.host === own.host && other.boot_id === own.boot_id && other.pid_ns === own.pid_ns;
}

/**
 * For a process whose PID space we share: "dead" when its PID is free or now belongs to a
 * process that started at another time, "alive" when it is provably the same process, and
 * "unknown" when the start time cannot be read (off Linux: the PID may have been reused).
 */
export function liveness(other: ProcessIdentity): "alive" | "dead" | "unknown" {
  if (!pidExists(other.pid)) return "dead";
  if (other.start_ticks === null) return "unknown";
  const now = processStartTicks(other.pid);
  if (now === null) return "unknown";
  return now === other.start_ticks ? "alive" : "dead";
}

export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOrNull(read: () => string | null): string | null {
  try {
    return read();
  } catch {
    return null;
  }
}
