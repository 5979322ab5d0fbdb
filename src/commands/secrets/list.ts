// `cpctl secrets list DEPLOYMENT`: the deployment's secrets and secret references, a row each
// (output/secret-list.ts), read from the deployment as `deploy get` reads it.
import { resolveDeployment } from "../../operations/resolve.js";
import { secretRows, secretView } from "../../output/secret-list.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command.argument("<deployment>", "deployment ID, or its exact name").addHelpText(
      "after",
      `
One row a name: a secret, its value shown as **** unless --show-secrets, or a secret
reference (external_container), whose VALUE says which orchestrator secret and key it comes
from (SECRET_NAME:KEY); SOURCE says which. Secrets first, then references, each in the
deployment's order. On a terminal: NAME, SOURCE, VALUE under a header (or "No secrets.");
off one, the same columns tab-separated.

-o json: an array of {"name", "source": "secret" or "reference", "value", "secret_name",
"secret_key"}, every key in every item, null where it does not apply (a reference has no
value, a secret no secret_name); yaml and ndjson the same items; -o id: the names.${examples(
        "cpctl secrets list my-agent",
        "cpctl secrets list my-agent -o id",
        "cpctl secrets list my-agent -o json | jq -r '.[] | select(.source == \"secret\") | .name'",
        "cpctl secrets list my-agent --show-secrets   # the values themselves",
      )}`,
    ),
  run: async (ctx, [ref]) => {
    const deployment = await resolveDeployment(ctx, ref);
    const printer = await ctx.printer();
    await printer.list(secretRows(printer.shown(deployment)), secretView);
  },
});
