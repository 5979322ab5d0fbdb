// The guard of output/workflow-commands.ts on its own: what it escapes, across writes, and that
// cpctl's own commands always start a line and are the only commands the runner finds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { workflowCommands } from "../../test/helpers/workflow-commands.js";
import type { IO } from "../io.js";
import { guardStreams, writeWorkflowCommand } from "./workflow-commands.js";

function captured() {
  let stdout = "";
  let stderr = "";
  const io = guardStreams({
    stdout: { write: (text) => (stdout += text), isTTY: false },
    stderr: { write: (text) => (stderr += text), isTTY: false },
    stdin: { isTTY: false, stream: process.stdin },
  } as IO);
  return { io, stdout: () => stdout, stderr: () => stderr };
}

describe("the GitHub Actions guard", () => {
  it("escapes a line-leading `::` and `##[`, also when a write splits them, and leaves the rest", () => {
    const { io, stderr } = captured();
    for (const chunk of ["ok: a::b c\n", "  :", ":add-mask::x\n", "text #", "#", "[error]y\n", "\u3000::z\n"])
      io.stderr.write(chunk);
    expect(stderr()).toBe("ok: a::b c\n  :\\u003aadd-mask::x\ntext ##\\u005berror]y\n\u3000:\\u003az\n");
    expect(workflowCommands(stderr())).toEqual([]);
  });

  it("cpctl's own command starts a line, after text that did not end one", () => {
    const { io, stderr } = captured();
    io.stderr.write("partial");
    writeWorkflowCommand(io.stderr, "warning", "careful\n::add-mask::no");
    io.stderr.write("::set-output name=a::b\n");
    expect(workflowCommands(stderr())).toEqual([
      { command: "warning", properties: {}, data: "careful\n::add-mask::no" },
    ]);
  });

  it("property: whatever is written, in whatever pieces, the runner finds only cpctl's own commands", () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom("::", ":", "#", "##", "[", "\n", "\r", " ", "\u00a0", "::add-mask::s", "##[error]e"),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, fc.boolean()), { maxLength: 30 }), (writes) => {
        const { io, stdout, stderr } = captured();
        let own = 0;
        for (const [text, command] of writes) {
          if (command) {
            writeWorkflowCommand(io.stderr, "notice", text);
            own++;
          } else io.stdout.write(text);
          io.stderr.write(text);
        }
        expect(workflowCommands(stdout())).toEqual([]);
        const found = workflowCommands(stderr());
        expect(found.map((c) => c.command)).toEqual(Array(own).fill("notice"));
      }),
      { numRuns: 300 },
    );
  });
});
