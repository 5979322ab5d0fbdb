import { runDelete } from "../../operations/delete.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment...>", "deployment IDs, exact names or ID prefixes (8+ characters)")
      .option(
        "--force",
        "send force=true (the single call only: several then go one call each); refused for a deployment still active (exit 2)",
      )
      .addHelpText(
        "after",
        `
Every deployment named is looked up first: one that is not found is exit 4, naming it, and
nothing is deleted. Several are listed on stderr and confirmed once. Asks for confirmation on a
terminal; elsewhere (scripts, CI, --no-input) it needs --yes, or it is exit 2 before any request.

One deployment: DELETE /v2/deployments/{id}. Several: DELETE /v2/deployments?deployment_ids=...,
at most 100 IDs a call; each call deletes all of its deployments or none. A call that fails is
said truthfully: which call, which deployments were deleted, which not, and which cannot be
known (the API layer sends a DELETE again when its answer is lost, so a failed call may still
have been carried out), with the command that shows what is left.

--force sends force=true, which the service takes on the single call only: with --force, several
deployments are deleted one call each. The service refuses to force-delete a deployment that is
still active (400, exit 2; in the emulator: a revision in progress): wait for it, or delete
without --force.

Output: nothing on stdout by default (stderr says what was deleted). One deployment: -o id
prints its ID, -o json (yaml, ndjson) {"id","name","deleted":true}. Several: -o id an ID a line,
-o json and yaml an array of those objects, -o ndjson one object a line.${examples(
          "cpctl deploy delete my-agent",
          "cpctl deploy delete my-agent --yes -o id",
          "cpctl deploy delete my-agent my-api --yes -o json | jq -r '.[].name'",
        )}`,
      ),
  run: (ctx, [refs], options) => runDelete(ctx, { refs, force: options.force }),
});
