// `cpctl emulator reset`: the emulator as it started, empty (its clock left as it is).
import { resetEmulator } from "../../api/emulator-controls.js";
import { guardMutation } from "../../operations/confirm.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { controlToken, EMULATOR_WIDE_HELP, emulatorTarget } from "./shared.js";

const WHAT = "every tenant's deployments, revisions, uploads, tracing projects, fail rules and faults";

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `
Deletes ${WHAT}, and zeroes the request statistics; the clock is left as it is. Asks for
confirmation on a terminal; elsewhere (scripts, CI, --no-input) it needs --yes.
${EMULATOR_WIDE_HELP}${examples("cpctl emulator reset", "cpctl emulator reset --yes")}`,
    ),
  run: async (ctx) => {
    // Asked first: there is nothing to confirm at an address that is not an emulator.
    const target = await emulatorTarget(ctx);
    await guardMutation(ctx, `reset the emulator (${WHAT})`, { always: true });
    await resetEmulator(target, controlToken(ctx));
    ctx.log.info(`reset the emulator: ${WHAT} deleted`);
  },
});
