// Defaults shared by startEmulator and the `cpctl emulator` flag parser, in a module of their
// own so that parsing flags does not load the server (and the schema library with it).
export const DEFAULT_PORT = 8124;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_STAGE_MS = 1500;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
