// `cpctl emulator stats`: the API requests the emulator received, per method and route.
import { emulatorStats } from "../../api/emulator-controls.js";
import type { View } from "../../output/printer.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { controlToken, EMULATOR_WIDE_HELP, emulatorTarget } from "./shared.js";

const routeView: View<{ route: string; count: number }> = {
  id: (row) => row.route,
  columns: [
    { header: "ROUTE", value: (row) => row.route },
    { header: "REQUESTS", value: (row) => row.count },
  ],
  empty: "No requests yet.",
};

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `
Counts the API requests received since the start (or the last reset), faulted ones
included and controls not: e.g. that a client sent a POST exactly once. -o json prints
{"requests": {"POST /v2/deployments": 1, ...}, "total": N}.
${EMULATOR_WIDE_HELP}${examples("cpctl emulator stats", `cpctl emulator stats -o json | jq '.requests["POST /v2/deployments"]'`)}`,
    ),
  run: async (ctx) => {
    const stats = await emulatorStats(await emulatorTarget(ctx), controlToken(ctx));
    const printer = await ctx.printer();
    if (printer.options.format !== "table" && printer.options.format !== "id") return printer.value(stats);
    const rows = Object.entries(stats.requests).map(([route, count]) => ({ route, count }));
    await printer.list(rows, routeView);
    if (printer.options.format === "table") ctx.log.info(`${stats.total} requests in all`);
  },
});
