import { resolveListener } from "../../operations/listener-resolve.js";
import { listenerView } from "../../output/views.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<listener>", "the listener's ID, its compute ID, or its ID's first 8+ characters")
      .addHelpText(
        "after",
        `
One listener: ID, compute type, compute ID, namespaces, created. -o json prints the service's
object ({id, compute_type, compute_id, compute_config: {k8s_namespaces}, created_at, updated_at});
-o id the ID. No listener by that ID or compute ID: exit 4.${examples(
          "cpctl listeners get my-cluster",
          "cpctl listeners get my-cluster -o json | jq -r '.compute_config.k8s_namespaces[]'",
        )}`,
      ),
  run: async (ctx, [ref]) => {
    const listener = await resolveListener(ctx, ref);
    await (await ctx.printer()).item(listener, listenerView);
  },
});
