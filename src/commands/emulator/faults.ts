// `cpctl emulator faults [list|add|clear]`: make the API misbehave as a flaky network or a
// proxy does, for the next requests to a path.
import { Argument, Option } from "@commander-js/extra-typings";
import { addFault, clearFaults, listFaults } from "../../api/emulator-controls.js";
import { UsageError } from "../../errors.js";
import type { EmulatorFault, FaultRequest } from "../../model/emulator-controls.js";
import type { View } from "../../output/printer.js";
import { formatDuration } from "../../util/duration.js";
import { duration, examples, integerIn } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { controlToken, EMULATOR_WIDE_HELP, emulatorTarget } from "./shared.js";

const faultView: View<EmulatorFault> = {
  id: (fault) => String(fault.id),
  columns: [
    { header: "ID", value: (fault) => fault.id },
    { header: "METHOD", value: (fault) => fault.method ?? "any" },
    { header: "PATH", value: (fault) => fault.path },
    { header: "LEFT", value: (fault) => fault.remaining },
    { header: "EFFECT", value: effect },
  ],
  empty: "No faults.",
};

function effect(fault: EmulatorFault): string {
  const parts = [
    fault.status !== null ? `status ${fault.status}` : "",
    fault.body ? `${fault.body} body` : "",
    fault.drop ? `drop ${fault.drop}` : "",
    fault.latency_ms ? `latency ${formatDuration(fault.latency_ms)}` : "",
    fault.retry_after !== null ? `Retry-After ${fault.retry_after}` : "",
  ];
  return parts.filter(Boolean).join(", ");
}

export default defineCommand({
  configure: (command) =>
    command
      .addArgument(
        new Argument("[action]", "list (the faults with uses left), add or clear")
          .choices(["list", "add", "clear"])
          .default("list"),
      )
      .option("--path <path>", "add: the API path it matches; * stands for one segment (/v2/deployments/*)")
      .option("--method <method>", "add: only this method (default: any)")
      .option("--count <n>", "add: for the next N matching requests (default 1)", integerIn(1))
      .option("--status <code>", "add: answer this HTTP status (200 to 599)", integerIn(200, 599))
      .option("--retry-after <seconds>", "add: with Retry-After: SECONDS", integerIn(0))
      .option("--latency <duration>", "add: hold the answer back this long", duration)
      .addOption(
        new Option(
          "--drop <when>",
          "add: close the connection without an answer, before or after the work",
        ).choices(["before", "after"]),
      )
      .addOption(
        new Option(
          "--body <kind>",
          "add: an HTML error page, or the JSON answer cut in half (the work done)",
        ).choices(["html", "truncated"]),
      )
      .addHelpText(
        "after",
        `
Faults are not saved with --state. The controls themselves are never faulted.
${EMULATOR_WIDE_HELP}${examples(
  "cpctl emulator faults add --method POST --path /v2/deployments --status 503 --count 2 --retry-after 2",
  "cpctl emulator faults add --path '/v2/deployments/*' --latency 5s",
  "cpctl emulator faults",
  "cpctl emulator faults clear",
)}`,
      ),
  run: async (ctx, [action], options) => {
    if (action === "add" && !options.path)
      throw new UsageError("emulator faults add: --path is required, e.g. --path /v2/deployments");
    const target = await emulatorTarget(ctx);
    const token = controlToken(ctx);
    const printer = await ctx.printer();
    if (action === "clear") {
      await clearFaults(target, token);
      ctx.log.info("cleared every fault");
      return;
    }
    if (action === "list" || !options.path) return printer.list(await listFaults(target, token), faultView);
    const fault: FaultRequest = { path: options.path };
    if (options.method !== undefined) fault.method = options.method.toUpperCase();
    if (options.count !== undefined) fault.count = options.count;
    if (options.status !== undefined) fault.status = options.status;
    if (options.retryAfter !== undefined) fault.retry_after = options.retryAfter;
    if (options.latency !== undefined) fault.latency_ms = options.latency;
    if (options.drop !== undefined) fault.drop = options.drop as "before" | "after";
    if (options.body !== undefined) fault.body = options.body as "html" | "truncated";
    await printer.item(await addFault(target, token, fault), faultView);
  },
});
