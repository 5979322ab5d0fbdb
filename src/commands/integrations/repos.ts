import { listIntegrationRepos } from "../../api/endpoints.js";
import { repositoryView } from "../../output/views.js";
import { examples, uuid } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<integration-id>", "the git integration's ID (cpctl integrations list)", uuid)
      .option("--alt", "an integration of the alternate listing (/v1/integrations/alt/gitrepo/.../repos)")
      .addHelpText(
        "after",
        `
One row a repository: owner/name, URL (what --repo-url takes), default branch, ID. -o json
prints the service's objects ({host_integration_id, id, name, owner, url, default_branch}); -o id
the URLs. An ID that is not one of your integrations of that listing is exit 4.${examples(
          'cpctl integrations repos "$(cpctl integrations list -o id | head -1)"',
          "cpctl integrations repos 0e7880cf-835f-56f2-9d2c-37d4af5797c9 -o json | jq -r '.[].url'",
        )}`,
      ),
  run: async (ctx, [integrationId], options) => {
    const repositories = await listIntegrationRepos(await ctx.api(), integrationId, Boolean(options.alt));
    await (await ctx.printer()).list(repositories, repositoryView);
  },
});
