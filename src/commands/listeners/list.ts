import { listListeners } from "../../api/endpoints.js";
import { listenerView } from "../../output/views.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command.addHelpText("after", examples("cpctl listeners list", "cpctl listeners list -o json")),
  run: async (ctx) => {
    const listeners = await listListeners(await ctx.api());
    await (await ctx.printer()).list(listeners, listenerView);
  },
});
