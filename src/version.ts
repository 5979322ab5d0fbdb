// Set at build time (scripts/build.mjs) and in tests (vitest.config.ts) from package.json.
declare const __CPCTL_VERSION__: string;
export const VERSION: string = __CPCTL_VERSION__;
