// Defaults shared by startEmulator and the `cpctl emulator` flag parser, in a module of their
// own so that parsing flags does not load the server (and the schema library with it).
export const DEFAULT_PORT = 8124;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_STAGE_MS = 1500;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How long an upload URL stays valid, on the emulator's clock: minutes, like a signed URL. */
export const UPLOAD_URL_LIFETIME_MS = 15 * 60 * 1000;
/** What an in-memory emulator holds of uploaded tarballs, all deployments together. */
export const DEFAULT_MEMORY_UPLOAD_QUOTA_BYTES = 256 * 1024 * 1024;
/**
 * The variables that hold the emulator's secrets, so that they need not be on the command line
 * (where `ps` shows them to every user of the machine); a flag wins over its variable (commands/emulator/run-args.ts).
 * `cpctl emulator clock|faults|stats|reset` send the control token from the same variable.
 */
export const API_KEYS_ENV = "CPCTL_EMULATOR_API_KEYS";
export const CONTROL_TOKEN_ENV = "CPCTL_EMULATOR_CONTROL_TOKEN";
