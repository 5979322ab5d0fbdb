import { type ApplyInput, runApply } from "../../operations/apply.js";
import { examples } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";
import { addCreateOption, addExtraBodyOptions, addFieldOptions, addFileOption } from "./body-options.js";
import { addReleaseOptions, addWaitOptions, RELEASE_HELP, WAIT_HELP } from "./wait-options.js";

export default optionsAre<ApplyInput>()(
  defineCommand({
    configure: (command) =>
      addReleaseOptions(
        addWaitOptions(
          addCreateOption(
            addExtraBodyOptions(addFieldOptions(addFileOption(command, true), "create")).option(
              "--dry-run",
              "show what would change and be sent (secret values masked); send nothing",
            ),
            "the file's deployment",
          ),
        ),
      ).addHelpText(
        "after",
        `\nCreates the deployment when none has the file's name; otherwise sends a patch with only the fields
that differ. Fields the file leaves out (or sets to null) are left as they are, and resource_spec
merges field by field; a secrets (or secret_references) list in the file is the whole set, so a
secret the deployment has beyond the file is removed. Before sending, stderr lists every field
and secret added, changed and removed (values masked). A difference in a field fixed at
creation is an error naming it. If another apply creates the deployment first, this one patches
it instead. Before it creates, a deployment whose name is a near miss of the file's (Web or
wen beside web; never digits only) is named: asked on a terminal (default no), exit 2
elsewhere unless --create. Run \`cpctl deploy diff -f FILE\` to see the plan.${WAIT_HELP}${RELEASE_HELP}${examples(
          "cpctl deploy apply -f deploy.yaml --wait",
          "cpctl deploy apply -f deploy.yaml --verify --rollback-on-failure",
          "cpctl deploy apply -f api.yaml --set source_revision_config.image_uri=ghcr.io/acme/api:$SHA",
        )}`,
      ),
    run: (ctx, _args, options) => runApply(ctx, options),
  }),
);
