import { InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { completes } from "../../completion/values.js";
import { LOG_LEVELS } from "../../model/enums.js";
import {
  DEFAULT_LIMIT,
  FOLLOW_INTERVAL_MS,
  type LogsInput,
  runLogs,
  type TimeBound,
} from "../../operations/print-logs.js";
import { parseDuration } from "../../util/duration.js";
import { examples, idOrPrefix, integerIn } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";

export default optionsAre<LogsInput>()(
  defineCommand({
    configure: (command) =>
      command
        .argument("<deployment>", "deployment ID, or its exact name")
        .option("--build", "the build log of a revision (default: the runtime log)")
        .option(
          "--revision <id>",
          "this revision's log (default: the runtime log of the revision that serves; --build: the latest)",
          idOrPrefix,
        )
        .option(
          "-f, --follow",
          "keep printing new entries until Ctrl-C (a build log: until its revision ends)",
        )
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
A log is one revision's: --revision's, else the runtime log of the revision that serves (the
active one; the latest while none is), and with --build the latest revision's build log.
It is read from GET /v2/deployments/{id}/revisions/{rid}/logs; a service that answers that
with 404 while /v1/projects answers is read through /v1 for the rest of the command (where
the runtime log without --revision is the whole deployment's); --debug says which and why.

One line an entry, oldest first: TIME LEVEL MESSAGE (levels coloured on a terminal). -o json
prints an array of {id, timestamp, level, message}; -o ndjson one entry a line, streamed with
--follow. Without --since the newest --limit entries are shown; with --since, the entries from
that time on; with --all, the whole log, printed page by page (1,000 entries a request) from
its first entry. --follow then asks for new entries every ${FOLLOW_INTERVAL_MS / 1000}s until Ctrl-C (exit 130);
following a build log ends by itself when its revision has finished (exit 0); following the
runtime log of the revision that serves moves on to a newer one once that one serves. A time
that is not one (the server's data) is shown as "(unreadable time)". A secret value the run
knows (the API key; the deployment's secrets, which the command reads unless given --revision
and a deployment ID) is shown as **** in every format; --show-secrets shows the lines as they
came.${examples(
            "cpctl deploy logs my-agent --since 15m --level WARNING",
            "cpctl deploy logs my-agent --build            # why did the latest build fail?",
            "cpctl deploy logs my-agent --all > agent.log",
            "cpctl deploy logs my-agent --follow -o ndjson | jq -r .message",
          )}`,
        ),
    run: (ctx, [ref], options) => runLogs(ctx, ref, options),
  }),
);

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
