// `cpctl emulator clock [advance DURATION]`: the emulator's time, and moving it forward.
import { Argument } from "@commander-js/extra-typings";
import { advanceClock, emulatorClock } from "../../api/emulator-controls.js";
import { UsageError } from "../../errors.js";
import type { EmulatorClock } from "../../model/emulator-controls.js";
import { DURATION_HELP, formatDuration } from "../../util/duration.js";
import { duration, examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { controlToken, EMULATOR_WIDE_HELP, emulatorTarget } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    command
      .addArgument(new Argument("[action]", "advance: move the clock forward").choices(["advance"]))
      .argument("[duration]", `how far, ${DURATION_HELP}`, duration)
      .addHelpText(
        "after",
        `
Without an action, prints the emulator's time. Revisions move through their stages on this
clock, and logs grow with it: advancing it by a stage's length (--stage-ms) moves every
revision in progress one stage on. It never goes back; with --state the offset is saved.
${EMULATOR_WIDE_HELP}${examples("cpctl emulator clock", "cpctl emulator clock advance 10m")}`,
      ),
  run: async (ctx, [action, advanceBy]) => {
    if (action === "advance" && advanceBy === undefined)
      throw new UsageError(`emulator clock advance: how far? ${DURATION_HELP}`);
    if (action !== "advance" && advanceBy !== undefined)
      throw new UsageError("emulator clock: a duration goes after 'advance'");
    const target = await emulatorTarget(ctx);
    const token = controlToken(ctx);
    const clock: EmulatorClock =
      action === "advance" && advanceBy !== undefined
        ? await advanceClock(target, token, advanceBy)
        : await emulatorClock(target, token);
    const printer = await ctx.printer();
    const ahead = clock.offset_ms ? ` (${formatDuration(clock.offset_ms)} ahead of real time)` : "";
    if (printer.options.format === "id") printer.line(clock.now);
    else await printer.value(clock, () => `${clock.now}${ahead}`);
  },
});
