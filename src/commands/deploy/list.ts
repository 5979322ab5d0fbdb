import { Option } from "@commander-js/extra-typings";
import { allDeployments, type DeploymentFilters, listDeployments } from "../../api/endpoints.js";
import { UsageError } from "../../errors.js";
import {
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
} from "../../model/enums.js";
import type { DeploymentT } from "../../model/responses.js";
import { latestRevisionStatuses } from "../../operations/latest-status.js";
import { fetchPage, sayMoreExist } from "../../operations/list-page.js";
import { deploymentListView, deploymentView } from "../../output/views.js";
import { booleanWord, examples, integerIn, oneOf, uuidList } from "../parsers.js";
import { defineCommand } from "../spec.js";

export default defineCommand({
  configure: (command) =>
    command
      .option("--name <name>", "only the deployment with exactly this name")
      .option("--name-contains <text>", "only deployments whose name contains this text")
      .addOption(
        new Option("--status <status>", "only deployments in this status")
          .choices(DEPLOYMENT_STATUSES)
          .argParser(oneOf(DEPLOYMENT_STATUSES)),
      )
      .addOption(
        new Option("--deployment-type <type>", "only this deployment type")
          .choices(DEPLOYMENT_TYPES)
          .argParser(oneOf(DEPLOYMENT_TYPES)),
      )
      .option(
        "--remote-reconciled <bool>",
        "only remote-reconciled (true) or not (false) deployments",
        booleanWord,
      )
      .option("--tag-value-ids <ids>", "comma-separated tag value IDs")
      .option("--image-version <version>", "only deployments of this image version")
      .option("--deployment-ids <ids>", "comma-separated deployment IDs", uuidList)
      .option(
        "--limit <n>",
        `page size, ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX} (server default ${LIST_LIMIT_DEFAULT})`,
        integerIn(LIST_LIMIT_MIN, LIST_LIMIT_MAX),
      )
      .option("--offset <n>", "start at this offset (>= 0)", integerIn(0))
      .option("--all", "follow the pages to the end (pages of 100; streamed with -o ndjson)")
      .addHelpText(
        "after",
        examples(
          "cpctl deploy list --status READY",
          "cpctl deploy list --all -o ndjson | jq -r .name",
          "cpctl deploy list --name-contains staging --limit 50 --offset 50",
        ),
      ),
  run: async (ctx, _args, options) => {
    if (options.all && options.limit !== undefined) {
      throw new UsageError("--limit and --all cannot be combined: --all fetches every page (100 at a time)");
    }
    const filters: DeploymentFilters = {
      name: options.name,
      name_contains: options.nameContains,
      status: options.status,
      deployment_type: options.deploymentType,
      remote_reconciled: options.remoteReconciled,
      tag_value_ids: options.tagValueIds,
      image_version: options.imageVersion,
      deployment_ids: options.deploymentIds,
    };
    const api = await ctx.api();
    const printer = await ctx.printer();
    // The table shows when a latest revision failed while the deployment stays READY; the
    // other formats are the API's objects as they are, and need no more requests.
    const table = printer.options.format === "table";
    const viewOf = async (page: DeploymentT[]) =>
      table ? deploymentListView(await latestRevisionStatuses(ctx, page)) : deploymentView;
    if (!options.all) {
      const { items, more } = await fetchPage((page) => listDeployments(api, filters, page), options);
      await printer.list(items, await viewOf(items));
      if (more) sayMoreExist(ctx, "deployments", items.length, options);
      return;
    }
    // One page in memory at a time: each page is written (a terminal table's too) before the
    // next is taken, and the statuses are the current page's only.
    const statuses = new Map<string, string>();
    const writer = printer.listWriter(deploymentListView(statuses));
    for await (const page of allDeployments(api, filters, { offset: options.offset ?? 0 })) {
      if (table) {
        statuses.clear();
        for (const [id, status] of await latestRevisionStatuses(ctx, page)) statuses.set(id, status);
      }
      for (const deployment of page) await writer.push(deployment);
      writer.flush();
    }
    await writer.end();
  },
});
