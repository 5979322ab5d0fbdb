// What `cpctl secrets set`, `unset` and `import` share. Each is `deploy patch` with one of its
// secret flags, run by patch's own operation (operations/patch.ts runPatch): the preview, the
// merge, the confirmation, --dry-run's output, the exit codes and the CI reports are patch's.
// Here: the flags patch has for what follows a change, and the help that says so.
import type { Command, OptionValues } from "@commander-js/extra-typings";
import { addReleaseOptions, addWaitOptions, RELEASE_HELP, WAIT_HELP } from "../deploy/wait-options.js";

/** The deployment argument's description, as deploy patch has it. */
export const DEPLOYMENT_ARGUMENT = "deployment ID, or its exact name";

/** --dry-run, --wait and its companions, --verify and --rollback-on-failure. */
export function addSecretChangeOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return addReleaseOptions(
    addWaitOptions(
      command.option("--dry-run", "show the changes and the patch body (secret values masked); send nothing"),
    ),
  );
}

/** After each command's own text: what it shares with `deploy patch`. */
export const SECRET_CHANGE_HELP = `
Before sending, stderr shows each secret added, changed or removed, by name (values masked;
with -o json one line {"preview":{...}}); a profile with confirm: true asks first (--yes
off a terminal). --dry-run shows the same and the patch body, and sends nothing. A change of
secrets starts a new revision; stdout gets the deployment as deploy patch prints it.
${WAIT_HELP}${RELEASE_HELP}`;
