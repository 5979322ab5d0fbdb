import { listIntegrations } from "../../api/endpoints.js";
import { integrationView } from "../../output/views.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .option("--alt", "list the alternate product's integrations (/v1/integrations/alt/gitrepo/install)")
      .addHelpText("after", examples("cpctl integrations list", "cpctl integrations list --alt -o id")),
  run: async (ctx, _args, options) => {
    const integrations = await listIntegrations(await ctx.api(), Boolean(options.alt));
    await (await ctx.printer()).list(integrations, integrationView);
  },
});
