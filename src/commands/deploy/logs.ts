import { InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { getRevision, type LogSource } from "../../api/endpoints.js";
import { completes } from "../../completion/values.js";
import type { Ctx } from "../../context.js";
import { InterruptedError, OperationError, UsageError } from "../../errors.js";
import { paintFor } from "../../log.js";
import { isTerminalRevisionStatus, LOG_LEVELS } from "../../model/enums.js";
import type { LogEntry } from "../../model/responses.js";
import { entriesForward, type LogFilters, LogFollower, newestEntries } from "../../operations/logs.js";
import { resolveDeployment, resolveDeploymentId, resolveRevisionId } from "../../operations/resolve.js";
import { logLine } from "../../output/log-lines.js";
import { joinLines } from "../../output/safe-text.js";
import { parseDuration } from "../../util/duration.js";
import { examples, idOrPrefix, integerIn } from "../parsers.js";
import { defineCommand } from "../spec.js";

/**
 * The pause before each request of --follow: one request per pause and round trip, as the
 * public clients of the service make (they sleep 2 s between calls).
 */
export const FOLLOW_INTERVAL_MS = 2_000;
const DEFAULT_LIMIT = 100;

interface LogsOptions {
  build?: boolean;
  revision?: string;
  follow?: boolean;
  all?: boolean;
  level?: string;
  since?: TimeBound;
  until?: TimeBound;
  grep?: string;
  limit?: number;
}

/** `--since 15m` is relative to when the command runs; an ISO time is absolute. */
type TimeBound = { ago: number } | { at: string };

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, or its exact name")
      .option("--build", "the build log of a revision (default: the runtime log of the deployment)")
      .option(
        "--revision <id>",
        "this revision's log (default: --build reads the latest revision; the runtime log covers all)",
        idOrPrefix,
      )
      .option("--follow", "keep printing new entries until Ctrl-C (a build log: until its revision ends)")
      .option("--all", "the whole log (every entry that matches), oldest first, printed as it arrives")
      .addOption(
        completes(
          new Option("--level <level>", `at least this level: ${LOG_LEVELS.join(", ")}`).argParser(level),
          LOG_LEVELS,
        ),
      )
      .addOption(
        new Option("--since <time>", "entries from this time on: a duration (15m) or ISO 8601").argParser(
          timeBound,
        ),
      )
      .addOption(
        new Option("--until <time>", "entries up to this time: a duration (5m) or ISO 8601").argParser(
          timeBound,
        ),
      )
      .option("--grep <text>", "only entries whose message contains this text")
      .option(
        "--limit <n>",
        `at most this many entries (default ${DEFAULT_LIMIT}: the newest; with --since, the first after it)`,
        integerIn(1, 100_000),
      )
      .addHelpText(
        "after",
        `
One line an entry, oldest first: TIME LEVEL MESSAGE (levels coloured on a terminal). -o json
prints an array of {id, timestamp, level, message}; -o ndjson one entry a line, streamed with
--follow. Without --since the newest --limit entries are shown; with --since, the entries from
that time on; with --all, the whole log, printed page by page (1,000 entries a request) from
its first entry. --follow then asks for new entries every ${FOLLOW_INTERVAL_MS / 1000}s until Ctrl-C (exit 130);
following a build log ends by itself when its revision has finished (exit 0). A time that is
not one (the server's data) is shown as "(unreadable time)".${examples(
          "cpctl deploy logs my-agent --since 15m --level WARNING",
          "cpctl deploy logs my-agent --build            # why did the latest build fail?",
          "cpctl deploy logs my-agent --all > agent.log",
          "cpctl deploy logs my-agent --follow -o ndjson | jq -r .message",
        )}`,
      ),
  run: async (ctx, [ref], options) => {
    await runLogs(ctx, ref, options);
  },
});

async function runLogs(ctx: Ctx, ref: string, options: LogsOptions): Promise<void> {
  if (options.all && options.limit !== undefined)
    throw new UsageError("--all and --limit cannot be used together: --all prints every entry");
  const source = await logSource(ctx, ref, options);
  const now = ctx.clock.now();
  const filters: LogFilters = {
    level: options.level,
    grep: options.grep,
    since: options.since ? isoOf(options.since, now) : undefined,
    until: options.until ? isoOf(options.until, now) : undefined,
  };
  const api = await ctx.api();
  const writer = await logWriter(ctx);
  const follower = new LogFollower(api, source, filters);
  try {
    if (filters.since || options.all) {
      // Oldest first, as they come: each page is printed while the next is asked for.
      for await (const page of entriesForward(api, source, filters, options.limit)) {
        if (options.follow) follower.seen(page);
        await writer.push(page);
      }
    } else {
      const newest = await newestEntries(api, source, filters, options.limit ?? DEFAULT_LIMIT);
      if (options.follow) follower.seen(newest);
      await writer.push(newest);
    }
    if (options.follow) await follow(ctx, source, follower, writer.push);
  } finally {
    // Ctrl-C while following ends the JSON array too: what was printed stays valid.
    await writer.end();
  }
}

/**
 * Asks for new entries, one request after each pause; a runtime log ends on Ctrl-C, a build log
 * once its revision has finished. Whether it has is asked in place of a read, after a read that
 * brought nothing new, so that following a build costs no more requests than following a
 * runtime log: then one more read gets its last lines.
 */
async function follow(
  ctx: Ctx,
  source: LogSource,
  follower: LogFollower,
  print: (entries: readonly LogEntry[]) => Promise<void>,
): Promise<void> {
  const api = await ctx.api();
  let askIfFinished = false;
  try {
    for (;;) {
      await ctx.clock.sleep(FOLLOW_INTERVAL_MS, ctx.signal);
      if (source.kind === "build" && askIfFinished) {
        const revision = await getRevision(api, source.deploymentId, source.revisionId);
        if (isTerminalRevisionStatus(revision.status)) {
          await print(await follower.next());
          return;
        }
        askIfFinished = false;
        continue;
      }
      const fresh = await follower.next();
      await print(fresh);
      askIfFinished = fresh.length === 0;
    }
  } catch (error) {
    // Ctrl-C is how a follow ends: exit 130, nothing more to say.
    if (error instanceof InterruptedError) throw new InterruptedError("interrupted", { quiet: true });
    throw error;
  }
}

async function logSource(ctx: Ctx, ref: string, options: LogsOptions): Promise<LogSource> {
  if (options.revision) {
    const deploymentId = await resolveDeploymentId(ctx, ref);
    const revisionId = await resolveRevisionId(ctx, deploymentId, options.revision);
    return { kind: options.build ? "build" : "runtime", deploymentId, revisionId };
  }
  if (!options.build) return { kind: "runtime", deploymentId: await resolveDeploymentId(ctx, ref) };
  const deployment = await resolveDeployment(ctx, ref);
  if (!deployment.latest_revision_id)
    throw new OperationError(`deployment ${deployment.name} has no revision, so no build log`, "no_revision");
  return { kind: "build", deploymentId: deployment.id, revisionId: deployment.latest_revision_id };
}

interface LogWriter {
  /** Writes a page of entries, at once. */
  push(entries: readonly LogEntry[]): Promise<void>;
  end(): Promise<void>;
}

/**
 * Text is written a line an entry, a page in one write, as it comes (a log is not a table, and
 * --follow must show each entry at once); the other formats go through the printer's list
 * writer (json streams its array, ndjson and id a line an entry).
 */
async function logWriter(ctx: Ctx): Promise<LogWriter> {
  const printer = await ctx.printer();
  if (printer.options.format !== "table") {
    const list = printer.listWriter<LogEntry>({ id: (entry) => entry.id, columns: [] });
    return {
      push: async (entries) => {
        for (const entry of entries) await list.push(entry);
      },
      end: () => list.end(),
    };
  }
  const paint = paintFor(printer.options.color);
  return {
    // logLine made every piece of the entry visible; the colour codes are its own.
    push: async (entries) => {
      if (entries.length > 0) printer.styledLine(joinLines(entries.map((entry) => logLine(entry, paint))));
    },
    end: async () => {},
  };
}

function level(value: string): string {
  const upper = value.trim().toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(upper))
    throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(", ")}.`);
  return upper;
}

function timeBound(value: string): TimeBound {
  const ms = parseDuration(value);
  if (ms !== null) return { ago: ms };
  if (/^\d{4}-\d{2}-\d{2}/.test(value.trim()) && !Number.isNaN(Date.parse(value)))
    return { at: new Date(Date.parse(value)).toISOString() };
  throw new InvalidArgumentError(
    "expected a duration (15m, 2h, 90s) or an ISO 8601 time (2026-11-21T12:00:00Z).",
  );
}

function isoOf(bound: TimeBound, now: number): string {
  return "at" in bound ? bound.at : new Date(now - bound.ago).toISOString();
}
