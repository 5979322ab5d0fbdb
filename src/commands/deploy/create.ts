import { type CreateInput, runCreate } from "../../operations/create.js";
import { examples } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption } from "./body-options.js";
import { addWaitOptions, WAIT_HELP } from "./wait-options.js";

export default optionsAre<CreateInput>()(
  defineCommand({
    configure: (command) =>
      addWaitOptions(
        addExtraBodyOptions(addFieldOptions(addFileOption(command), "create")).option(
          "--dry-run",
          "validate and print the request (secret values masked); send nothing",
        ),
      ).addHelpText(
        "after",
        `${WAIT_HELP}${examples(
          "cpctl deploy create -f deployment.yaml --wait",
          'cpctl deploy create --name my-agent --source gitrepo --integration-id "$INTEGRATION_ID" \\',
          "    --repo-url https://github.com/acme/agent --repo-ref main --agent-config-path agent.json",
          "cpctl deploy create --name api --source external_container --image-uri ghcr.io/acme/api:1.2 \\",
          "    --cpu 1 --memory-mb 2048 --secret OPENAI_API_KEY --dry-run",
        )}`,
      ),
    run: (ctx, _args, options) => runCreate(ctx, options),
  }),
);
