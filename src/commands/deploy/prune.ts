import { Option } from "@commander-js/extra-typings";
import { runPrune } from "../../operations/prune.js";
import { duration, examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .requiredOption(
        "--previews-of <name>",
        "the deployment whose previews to delete: only deployments named exactly NAME-pr-<digits> (never NAME itself)",
      )
      .option("--pr <n>", "only pull request N's preview (NAME-pr-N)")
      .addOption(
        new Option(
          "--older-than <duration>",
          "only previews not updated for longer than this, by the server's clock, e.g. 7d, 36h",
        ).argParser(duration),
      )
      .option("--dry-run", "list what would be deleted and what kept; delete nothing")
      .addHelpText(
        "after",
        `
Deletes the preview deployments \`deploy push --preview\` made: NAME-pr-N, exactly (NAME-pr-1x,
NAME-pr-, xNAME-pr-1 and NAME itself are never touched). They are found by listing every page
with name_contains NAME-pr- and checking each name exactly. --pr N keeps to pull request N's;
--older-than keeps to those whose updated_at is older than DURATION, measured against the
server's clock (the Date header of the list's answer; this machine's, said, when it has none);
given both, a preview must match both; given neither, every preview of NAME goes.

The previews found are listed on stderr, each marked delete or keep. A terminal asks before
deleting; elsewhere (scripts, CI, --no-input) it needs --yes, or it is exit 2 before any
request. --dry-run lists and deletes nothing. Nothing matched: exit 0, and it says so. The
deletion is DELETE /v2/deployments?deployment_ids=... (at most 100 IDs a call, one call after
the other); a call that fails part-way is said truthfully: which were deleted, which not, and
which cannot be known, with the command that shows what is left (the same prune again deletes
it).

Output: the deleted names, one a line; -o id the deleted IDs; -o json (yaml, ndjson)
{"deleted": [names], "kept": [names]}, kept being the previews of NAME that the filters left
out (with --dry-run, "deleted" is empty and "would_delete" lists what would go).${examples(
          "cpctl deploy prune --previews-of my-agent --pr 7 --yes            # pull request 7 was closed",
          "cpctl deploy prune --previews-of my-agent --older-than 7d --yes   # nightly: stale previews",
          "cpctl deploy prune --previews-of my-agent --dry-run -o json | jq .would_delete",
        )}`,
      ),
  run: (ctx, _args, options) =>
    runPrune(ctx, {
      previewsOf: options.previewsOf,
      pr: options.pr,
      olderThan: options.olderThan,
      dryRun: options.dryRun,
    }),
});
