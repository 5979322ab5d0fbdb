import { deleteDeployment } from "../../api/endpoints.js";
import { guardMutation } from "../../operations/confirm.js";
import { resolveDeployment } from "../../operations/resolve.js";
import { sendChange } from "../../operations/send-change.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command.argument("<deployment>", "deployment ID, or its exact name").addHelpText(
      "after",
      `
Asks for confirmation on a terminal; elsewhere (scripts, CI, --no-input) it needs --yes.
Output: nothing on stdout by default; -o id prints the deleted ID, -o json (yaml, ndjson)
prints {"id","name","deleted":true}. A confirmation line goes to stderr.${examples(
        "cpctl deploy delete my-agent",
        "cpctl deploy delete my-agent --yes -o id",
      )}`,
    ),
  run: async (ctx, [ref]) => {
    const deployment = await resolveDeployment(ctx, ref);
    await guardMutation(ctx, `delete deployment ${deployment.name} (${deployment.id})`, { always: true });
    const api = await ctx.api();
    // DELETE is retried by the API layer: an attempt before the one that failed may have deleted it.
    await sendChange(ctx, { what: "delete", deploymentId: deployment.id, retried: true }, () =>
      deleteDeployment(api, deployment.id),
    );
    const printer = await ctx.printer();
    const result = { id: deployment.id, name: deployment.name, deleted: true };
    switch (printer.options.format) {
      case "table":
        break;
      case "id":
        printer.line(deployment.id);
        break;
      default:
        await printer.value(result);
    }
    ctx.log.info(`deleted deployment ${deployment.name} (${deployment.id})`);
  },
});
