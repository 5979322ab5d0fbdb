import { Option } from "@commander-js/extra-typings";
import { allRevisions, listRevisions } from "../../api/endpoints.js";
import { UsageError } from "../../errors.js";
import { LIST_LIMIT_MAX, LIST_LIMIT_MIN, REVISION_STATUSES } from "../../model/enums.js";
import { fetchPage, sayMoreExist } from "../../operations/list-page.js";
import { resolveDeployment, resolveDeploymentId } from "../../operations/resolve.js";
import { revisionListView, revisionView } from "../../output/views.js";
import { examples, integerIn, oneOf } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("<deployment>", "deployment ID, or its exact name")
      .addOption(
        new Option("--status <status>", "only revisions in this status")
          .choices(REVISION_STATUSES)
          .argParser(oneOf(REVISION_STATUSES)),
      )
      .option(
        "--limit <n>",
        `page size, ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX} (the server's default when not given)`,
        integerIn(LIST_LIMIT_MIN, LIST_LIMIT_MAX),
      )
      .option("--offset <n>", "skip this many revisions (>= 0)", integerIn(0))
      .option("--all", "follow the pages to the end (pages of 100; streamed with -o ndjson)")
      .addHelpText(
        "after",
        `\nNewest first. -o id prints one revision ID a line.${examples(
          "cpctl deploy revisions my-agent",
          "cpctl deploy revisions my-agent --status BUILD_FAILED --limit 5",
          "cpctl deploy revisions my-agent --all -o ndjson | jq -r '.id + \" \" + .status'",
        )}`,
      ),
  run: async (ctx, [ref], options) => {
    if (options.all && options.limit !== undefined) {
      throw new UsageError("--limit and --all cannot be combined: --all fetches every page (100 at a time)");
    }
    const printer = await ctx.printer();
    // The table marks the active revision, which only the deployment knows: read it then.
    const table = printer.options.format === "table";
    const deployment = table ? await resolveDeployment(ctx, ref) : null;
    const id = deployment?.id ?? (await resolveDeploymentId(ctx, ref));
    const view = table ? revisionListView(deployment?.active_revision_id ?? null) : revisionView;
    const api = await ctx.api();
    if (!options.all) {
      const { items, more } = await fetchPage(
        (page) => listRevisions(api, id, { ...page, status: options.status }),
        options,
      );
      await printer.list(items, view);
      if (more) sayMoreExist(ctx, "revisions", items.length, options);
      return;
    }
    const writer = printer.listWriter(view);
    // allRevisions starts at the first revision: an --offset is skipped here.
    let skip = options.offset ?? 0;
    for await (const page of allRevisions(api, id, { status: options.status })) {
      for (const revision of page) {
        if (skip > 0) skip--;
        else await writer.push(revision);
      }
      writer.flush();
    }
    await writer.end();
  },
});
