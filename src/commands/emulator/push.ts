// `cpctl emulator push DEPLOYMENT`: what a push to the tracked branch does to a gitrepo
// deployment with build_on_push: a new revision, built at a commit.
import { simulatePush } from "../../api/emulator-controls.js";
import { resolveDeploymentId } from "../../operations/resolve.js";
import { revisionView } from "../../output/views.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { emulatorTarget, TENANT_CONTROL_HELP } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, name or ID prefix")
      .option(
        "--branch <name>",
        "the branch pushed to; it must be the one the deployment tracks (default: that one)",
      )
      .option("--sha <sha>", "the commit pushed, 40 hexadecimal digits (default: a random one)")
      .addHelpText(
        "after",
        `
Prints the new revision. Only for a gitrepo deployment with build_on_push true and a branch
as repo_ref (none: main); otherwise the emulator refuses (409) and nothing is created.
${TENANT_CONTROL_HELP}${examples(
  "cpctl deploy patch my-agent --build-on-push && cpctl emulator push my-agent",
  "cpctl emulator push my-agent --sha 0123456789abcdef0123456789abcdef01234567 || echo 'not built on push'",
)}`,
      ),
  run: async (ctx, [ref], options) => {
    // Before the deployment is looked up: that look-up carries the credentials too.
    const target = await emulatorTarget(ctx);
    const id = await resolveDeploymentId(ctx, ref);
    const revision = await simulatePush(target, id, {
      ...(options.branch !== undefined ? { branch: options.branch } : {}),
      ...(options.sha !== undefined ? { sha: options.sha } : {}),
    });
    await (await ctx.printer()).item(revision, revisionView);
  },
});
