import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  version: string;
};

export default defineConfig({
  define: { __CPCTL_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // End-to-end tests spawn the built binary; `npm test` builds first (pretest).
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/fast-check-seed.ts"],
  },
});
