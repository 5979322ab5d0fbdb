import { type PatchFlags, runPatch } from "../../operations/patch.js";
import { examples } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";
import { addExtraBodyOptions, addFieldOptions, addFileOption, addMergeOptions } from "./body-options.js";
import { addReleaseOptions, addWaitOptions, RELEASE_HELP, WAIT_HELP } from "./wait-options.js";

export default optionsAre<PatchFlags>()(
  defineCommand({
    configure: (command) =>
      addReleaseOptions(
        addWaitOptions(
          addMergeOptions(
            addExtraBodyOptions(
              addFieldOptions(
                addFileOption(command.argument("<deployment>", "deployment ID, or its exact name")),
                "patch",
              ),
            ),
          ).option("--dry-run", "show the changes and the patch body (secret values masked); send nothing"),
        ),
      ).addHelpText(
        "after",
        `
Changes only what is named; everything else stays as it is. The API replaces secrets,
secret_references and resource_spec whole, so cpctl reads the deployment, merges the change
into them and sends the whole result: --secret and --secrets-file set those secrets and keep
the others, resource flags and --set source_config.resource_spec.* keep the other fields
(labels and annotations merge by key; a list is replaced only when named), and a limit that
sat at its default (2 x cpu, ...) follows its request. --set PATH=null clears one resource
field or key. A file given with -f is merged the same way (null in it means "no opinion").

Before sending, stderr shows every change, field by field and secret by name (values masked),
removals included; with -o json it is one line {"preview":{...}}. --dry-run shows the same
and sends nothing. repo_ref, agent_config_path, image_uri, source_tarball_path,
resource_spec and secrets start a new revision; the command says whether one started.
A secret value of "****" (the mask) is refused, and so is an empty one unless
--allow-empty-secrets. If the server returns secrets without their values, cpctl refuses to
merge rather than write back what it cannot see: give the whole set with --replace-secrets.${WAIT_HELP}${RELEASE_HELP}${examples(
          "cpctl deploy patch my-agent --secret OPENAI_API_KEY=sk-new   # the other secrets stay",
          "cpctl deploy patch my-api --cpu 2 --max-scale 5 --dry-run     # memory, labels, ... stay",
          "cpctl deploy patch my-api --unset-secret OLD_TOKEN",
          "cpctl deploy patch my-api --set source_config.resource_spec.labels.team=null",
          "cpctl deploy patch my-agent --repo-ref release-2 --wait",
          "cpctl deploy patch my-agent --repo-ref release-3 --verify --rollback-on-failure",
          "cpctl deploy patch my-agent --no-build-on-push   # no new revision",
        )}`,
      ),
    run: (ctx, [ref], options) => runPatch(ctx, ref, options),
  }),
);
