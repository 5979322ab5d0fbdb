// `cpctl emulator health DEPLOYMENT failing|ok`: the emulator's stand-in agent server of a
// deployment fails its health check (`/ok` answers 500), or passes again, so that a release
// that fails its checks, and its rollback, can be rehearsed.
import { Argument } from "@commander-js/extra-typings";
import { setAgentHealth } from "../../api/emulator-controls.js";
import { resolveDeployment, resolveRevisionId } from "../../operations/resolve.js";
import { examples, idOrPrefix } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { emulatorTarget, TENANT_CONTROL_HELP } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, name or ID prefix")
      .addArgument(
        new Argument("<state>", "failing: /ok answers 500; ok: 200 again").choices(["failing", "ok"]),
      )
      .option(
        "--revision <id>",
        "this revision, or its first 8 characters or more (default: failing marks the next revision to start; ok clears every mark)",
        idOrPrefix,
      )
      .addHelpText(
        "after",
        `
The deployment's custom_url answers GET /ok as an agent server: 200 {"ok": true} while its
active revision is DEPLOYED. "failing" makes the next revision to start (or --revision) answer
500 once it serves, so that \`deploy push --verify --rollback-on-failure\` fails its check and
rolls back to the revision before, which answers 200. "ok" clears the mark of --revision, or
without it every mark of the deployment. Prints what was marked and the address.
${TENANT_CONTROL_HELP}${examples(
  "cpctl emulator health my-agent failing   # the next revision answers /ok with 500",
  "cpctl emulator health my-agent ok",
)}`,
      ),
  run: async (ctx, [ref, state], options) => {
    // Before the deployment is looked up: that look-up carries the credentials too.
    const target = await emulatorTarget(ctx);
    const deployment = await resolveDeployment(ctx, ref);
    const revisionId = options.revision
      ? await resolveRevisionId(ctx, deployment.id, options.revision)
      : undefined;
    const answer = await setAgentHealth(target, deployment.id, {
      state: state as "failing" | "ok",
      ...(revisionId ? { revision_id: revisionId } : {}),
    });
    const marked = answer.revision_id
      ? `revision ${answer.revision_id}`
      : state === "failing"
        ? "the next revision to start"
        : "every revision";
    ctx.log.info(
      `${marked} of ${deployment.name} ${state === "failing" ? "will answer /ok with 500" : "answers /ok as its status says"}: ${answer.url}/ok`,
    );
    await (await ctx.printer()).value(answer);
  },
});
