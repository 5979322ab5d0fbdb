// `cpctl secrets import DEPLOYMENT FILE`: `deploy patch DEPLOYMENT --secrets-file FILE`.
import { SECRET_ARGUMENTS } from "../../manifest/secrets.js";
import { runPatch } from "../../operations/patch.js";
import { addAllowEmptySecrets } from "../deploy/body-options.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addSecretChangeOptions, DEPLOYMENT_ARGUMENT, SECRET_CHANGE_HELP } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    addAllowEmptySecrets(
      addSecretChangeOptions(
        command
          .argument("<deployment>", DEPLOYMENT_ARGUMENT)
          .argument("<file>", "a dotenv file (NAME=VALUE lines), or - for stdin"),
      ),
    ).addHelpText(
      "after",
      `
Sets every secret of a dotenv file and keeps every other one: exactly
\`cpctl deploy patch DEPLOYMENT --secrets-file FILE\`. The file is read as the dotenv package
and Node's --env-file read it; a line they would read differently is refused, naming the line
and never the value (docs/deployments.md, "Secrets files"). A value of "****" (the mask) is
refused, and so is an empty one unless --allow-empty-secrets; nothing is sent then (exit 2). With - as FILE the file comes from
stdin (at most 4 MiB, as a file): the values stay out of the command line and the shell
history.
${SECRET_CHANGE_HELP}${examples(
  "cpctl secrets import my-agent .env --dry-run",
  "cpctl secrets import my-agent .env --wait",
  "cpctl secrets import my-agent - < .env",
)}`,
    ),
  run: (ctx, [ref, file], options) =>
    runPatch(ctx, ref, { ...options, secretsFile: file, secretNaming: SECRET_ARGUMENTS }),
});
