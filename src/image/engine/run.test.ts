// An engine run under its guard (guard.ts): its output, stdin and exit code as if it ran alone,
// and an engine that cannot start said so.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failure } from "../../../test/helpers/failure.js";
import { OperationError } from "../../errors.js";
import { runEngine } from "./run.js";

function script(body: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "cpctl-engine-run-test-")), "docker");
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe.skipIf(process.platform === "win32")("an engine under its guard", () => {
  it("gets stdin, and gives its output, its lines and its exit code", async () => {
    const path = script('read -r word; echo "out $word"; echo "err line" >&2; exit 3');
    const lines: string[] = [];
    const run = await runEngine({ name: "docker", path }, [], {
      env: { PATH: "/usr/bin:/bin" },
      stdin: "hello\n",
      onLine: (line) => lines.push(line),
    });
    expect(run).toEqual({ code: 3, stdout: "out hello\n", stderr: "err line\n" });
    expect(lines.sort()).toEqual(["err line", "out hello"]);
  });

  it("an engine ended by a signal: 128 and the signal's number", async () => {
    const path = script("kill -TERM $$");
    const run = await runEngine({ name: "docker", path }, [], { env: { PATH: "/usr/bin:/bin" } });
    expect(run.code).toBe(128 + 15);
  });

  it("an engine that cannot start: the error names it", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "cpctl-engine-run-test-")), "docker");
    const error = await failure(runEngine({ name: "docker", path }, [], { env: {} }), OperationError);
    expect(error.message).toMatch(new RegExp(`could not run ${path}: spawn ${path} ENOENT`));
  });
});
