// `cpctl secrets unset DEPLOYMENT NAME...`: `deploy patch DEPLOYMENT --unset-secret NAME...`.
import { runPatch } from "../../operations/patch.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addSecretChangeOptions, DEPLOYMENT_ARGUMENT, SECRET_CHANGE_HELP } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    addSecretChangeOptions(
      command.argument("<deployment>", DEPLOYMENT_ARGUMENT).argument("<name...>", "the secrets to remove"),
    ).addHelpText(
      "after",
      `
Removes each secret by name and keeps every other one: exactly
\`cpctl deploy patch DEPLOYMENT --unset-secret NAME...\`. A name the deployment has no secret
of is a warning; when none of them is there, nothing is sent (exit 0). A secret reference
(SOURCE reference in \`cpctl secrets list\`) is removed with
\`cpctl deploy patch DEPLOYMENT --unset-secret-ref NAME\`.
${SECRET_CHANGE_HELP}${examples(
  "cpctl secrets unset my-agent OLD_TOKEN --dry-run",
  "cpctl secrets unset my-agent OLD_TOKEN --wait",
)}`,
    ),
  run: (ctx, [ref, names], options) => runPatch(ctx, ref, { ...options, unsetSecret: names }),
});
