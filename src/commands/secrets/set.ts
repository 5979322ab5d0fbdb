// `cpctl secrets set DEPLOYMENT NAME[=VALUE]...`: `deploy patch DEPLOYMENT --secret NAME[=VALUE]...`.
import { Argument } from "@commander-js/extra-typings";
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
          .addArgument(
            new Argument(
              "<name[=value]...>",
              "NAME: the value of the environment variable NAME; NAME=VALUE: that value (seen by ps and kept in shell history)",
            ),
          ),
      ),
    ).addHelpText(
      "after",
      `
Sets each secret by name and keeps every other one: exactly
\`cpctl deploy patch DEPLOYMENT --secret NAME[=VALUE]...\`. NAME alone takes the value of the
environment variable NAME (it must be set). A value written on the command line can be read
by other users of the machine (ps) and stays in your shell history: prefer NAME alone, or
put the values in a dotenv file for \`cpctl secrets import\` (which also reads stdin). A value
of "****" (the mask) or one that looks like a mask is refused, and so is an empty one unless
--allow-empty-secrets; nothing is sent then (exit 2).
${SECRET_CHANGE_HELP}${examples(
  "cpctl secrets set my-agent OPENAI_API_KEY --dry-run   # the value from $OPENAI_API_KEY",
  "cpctl secrets set my-agent OPENAI_API_KEY --wait",
  "cpctl secrets set my-agent OPENAI_API_KEY --verify --rollback-on-failure",
  "cpctl secrets set my-agent LOG_LEVEL=debug            # visible in ps: not for secret values",
)}`,
    ),
  run: (ctx, [ref, secrets], options) =>
    runPatch(ctx, ref, { ...options, secret: secrets, secretNaming: SECRET_ARGUMENTS }),
});
