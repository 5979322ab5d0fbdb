import { runListenerDelete } from "../../operations/listeners.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<listener>", "the listener's ID, its compute ID, or its ID's first 8+ characters")
      .option("--dry-run", "show what would be deleted; delete nothing")
      .addHelpText(
        "after",
        `
DELETE /v2/listeners/{id}. A listener that deployments use is not deleted (exit 1, naming
them): a deployment's listener is fixed at its creation. Asks for confirmation on a terminal;
elsewhere (scripts, CI, --no-input) it needs --yes. Output: nothing on stdout by default; -o id
the deleted ID, -o json (yaml, ndjson) {"id","compute_id","deleted":true}.${examples(
          "cpctl listeners delete my-cluster --dry-run",
          "cpctl listeners delete my-cluster --yes",
        )}`,
      ),
  run: (ctx, [ref], options) => runListenerDelete(ctx, { ref, dryRun: options.dryRun }),
});
