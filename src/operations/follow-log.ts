// `deploy logs --follow`: new entries, one request after each pause, until Ctrl-C (exit 130).
//
// After a read that brought nothing new, the next request asks something else in its place,
// so that following costs one request a pause whatever is followed:
// - a build log: whether its revision has finished; then one more read gets its last lines,
//   and the follow ends (exit 0);
// - the runtime log chosen for the deployment (no --revision), read from v2: which revision
//   serves now. A newer one (deployed in the place of the one followed, or the first one of a
//   deployment that had none) is followed from then on, from its first entry (--since's, with
//   --since), once the last lines of the one it replaces are read. From /v1 that log is
//   already the whole deployment's: nothing to switch.
import { getDeployment, getRevision, type LogSource } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { InterruptedError } from "../errors.js";
import { isTerminalRevisionStatus } from "../model/enums.js";
import type { LogEntry } from "../model/responses.js";
import { type LogFilters, LogFollower, type LogReader, servingLog } from "./logs.js";

/**
 * The pause before each request of --follow: one request per pause and round trip, as the
 * public clients of the service make (they sleep 2 s between calls).
 */
export const FOLLOW_INTERVAL_MS = 2_000;

/** A log followed: its source, and its follower (which has seen what was printed already). */
export interface Followed {
  source: LogSource;
  follower: LogFollower;
}

export interface Following {
  deploymentId: string;
  /** Null: the runtime log of a deployment that has no revision yet. */
  followed: Followed | null;
  filters: LogFilters;
}

export async function followLog(
  ctx: Ctx,
  reader: LogReader,
  start: Following,
  print: (entries: readonly LogEntry[]) => Promise<void>,
): Promise<void> {
  let followed = start.followed;
  let askInstead = followed === null;
  try {
    for (;;) {
      await ctx.clock.sleep(FOLLOW_INTERVAL_MS, ctx.signal);
      if (askInstead && followed?.source.kind === "build") {
        const { deploymentId, revisionId } = followed.source;
        const revision = await getRevision(reader.api, deploymentId, revisionId);
        if (isTerminalRevisionStatus(revision.status)) {
          await print(await followed.follower.next());
          return;
        }
        askInstead = false;
        continue;
      }
      if (askInstead) {
        const source = servingLog(await getDeployment(reader.api, start.deploymentId));
        if (source && source.revisionId !== followed?.source.revisionId) {
          // The last lines of the one it replaces (its shutdown) first.
          if (followed) await print(await followed.follower.next());
          followed = { source, follower: new LogFollower(reader, source, start.filters) };
        }
        askInstead = followed === null;
        continue;
      }
      if (!followed) continue;
      const fresh = await followed.follower.next();
      await print(fresh);
      askInstead =
        fresh.length === 0 && (followed.source.kind === "build" || switches(reader, followed.source));
    }
  } catch (error) {
    // Ctrl-C is how a follow ends: exit 130, nothing more to say.
    if (error instanceof InterruptedError) throw new InterruptedError("interrupted", { quiet: true });
    throw error;
  }
}

/** A runtime log chosen for the deployment, read per revision (v2): it moves to the serving one. */
function switches(reader: LogReader, source: LogSource): boolean {
  return source.kind === "runtime" && source.wholeDeployment === true && reader.endpoints.version === "v2";
}
