import type { Ctx } from "../../context.js";
import { buildBody, rejectIssues } from "../../manifest/build.js";
import { creationChanges } from "../../model/plan.js";
import { validateCreateRequest } from "../../model/validate.js";
import { createWithPreview } from "../../operations/create.js";
import { completeCreateBody } from "../../prompt/complete-create.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption, type MutationOptions } from "./body-options.js";
import { addWaitOptions, WAIT_HELP } from "./wait-options.js";

export type CreateOptions = MutationOptions;

export default defineCommand({
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
  run: async (ctx, _args, options) => {
    await runCreate(ctx, options);
  },
});

export async function runCreate(ctx: Ctx, options: CreateOptions): Promise<void> {
  const built = await buildBody("create", options, ctx);
  await completeCreateBody(ctx, built.body);
  const checked = validateCreateRequest(built.body);
  if (!checked.ok) return rejectIssues(built, checked.issues, "the create request");
  await createWithPreview(ctx, checked.value, options, creationChanges(checked.value));
}
