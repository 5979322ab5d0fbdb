import { resolveDeployment } from "../../operations/resolve.js";
import { deploymentView } from "../../output/views.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, or its exact name")
      .addHelpText(
        "after",
        examples("cpctl deploy get my-agent", 'cpctl deploy get "$DEPLOYMENT_ID" -o json | jq -r .status'),
      ),
  run: async (ctx, [ref]) => {
    const deployment = await resolveDeployment(ctx, ref);
    await (await ctx.printer()).item(deployment, deploymentView);
  },
});
