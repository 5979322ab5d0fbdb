// What the `cpctl emulator ...` control commands share: the address checked to be an emulator
// before anything else is sent, the control token the emulator-wide ones send, and the words
// their help ends with.
import { type ControlToken, EmulatorTarget, NotAnEmulatorError } from "../../api/emulator-controls.js";
import type { Ctx } from "../../context.js";
// The variable holding an emulator's --control-token (never a flag here: it is a credential).
import { CONTROL_TOKEN_ENV } from "../../emulator/defaults.js";

/**
 * The profile's address, once it has answered as an emulator: the first thing each control
 * does (before it looks a deployment up), so that nothing with a credential goes elsewhere.
 * Anything else: exit 2, saying where the address comes from.
 */
export async function emulatorTarget(ctx: Ctx): Promise<EmulatorTarget> {
  const api = await ctx.api();
  try {
    return await EmulatorTarget.check(api);
  } catch (error) {
    if (error instanceof NotAnEmulatorError) {
      const from = (await ctx.settings()).origin.baseUrl;
      error.withHint(
        `The address comes from ${from ?? "the profile"}. For an emulator on this machine: --profile local (http://127.0.0.1:8124), or --base-url with the address \`cpctl emulator\` prints.`,
      );
    }
    throw error;
  }
}

/** The control token from the environment, remembered as a secret so that no message shows it. */
export function controlToken(ctx: Ctx): ControlToken {
  const token = ctx.env[CONTROL_TOKEN_ENV]?.trim() || undefined;
  if (token) ctx.rememberSecret(token);
  return token;
}

/** How a control reaches the emulator, for the help of each control command. */
export const TENANT_CONTROL_HELP = `
Sent to the profile's address with its credentials (--profile local: the emulator on
127.0.0.1:8124), so it acts in your tenant: the one your deployments are in. Only the local
control plane (\`cpctl emulator\`) has this control: cpctl first asks the address (GET
/_emulator/health, with no credential) and sends nothing else to one that does not answer
as an emulator (exit 2).`;

export const EMULATOR_WIDE_HELP = `
Sent to the profile's address (--profile local: the emulator on 127.0.0.1:8124). It acts on
the whole emulator, every tenant. An emulator started with --control-token needs that token
in ${CONTROL_TOKEN_ENV}; one started with --api-key and no control token refuses it.
Only the local control plane (\`cpctl emulator\`) has this control: cpctl first asks the
address (GET /_emulator/health, with no credential) and sends nothing else to one that does
not answer as an emulator (exit 2).`;
