// What the `cpctl emulator ...` control commands share: the control token the emulator-wide
// ones send, and the words their help ends with.
import type { ControlToken } from "../../api/emulator-controls.js";
import type { Ctx } from "../../context.js";
// The variable holding an emulator's --control-token (never a flag here: it is a credential).
import { CONTROL_TOKEN_ENV } from "../../emulator/defaults.js";

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
control plane (\`cpctl emulator\`) has this control; a hosted one answers 404.`;

export const EMULATOR_WIDE_HELP = `
Sent to the profile's address (--profile local: the emulator on 127.0.0.1:8124). It acts on
the whole emulator, every tenant. An emulator started with --control-token needs that token
in ${CONTROL_TOKEN_ENV}; one started with --api-key and no control token refuses it.
Only the local control plane (\`cpctl emulator\`) has this control; a hosted one answers 404.`;
