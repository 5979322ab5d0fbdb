import { describe, expect, it } from "vitest";
import { isPreviewOf, parsePullRequestNumber, previewName, previewNameProblem } from "./preview-name.js";

describe("preview names", () => {
  it("numbers: positive decimal integers, no sign, no leading zero, safe", () => {
    for (const ok of ["1", "7", "42", "9007199254740991"])
      expect(parsePullRequestNumber(ok)).toBe(Number(ok));
    for (const bad of ["", "0", "07", "-1", "+1", "1.5", "1e3", " 1", "1 ", "٣", "9007199254740993", "x"])
      expect(parsePullRequestNumber(bad), bad).toBeNull();
  });

  it("NAME-pr-N, and only names of exactly that form are previews of NAME", () => {
    expect(previewName("my-agent", 7)).toBe("my-agent-pr-7");
    for (const yes of ["my-agent-pr-7", "my-agent-pr-0", "my-agent-pr-007", "my-agent-pr-123456"])
      expect(isPreviewOf("my-agent", yes), yes).toBe(true);
    for (const no of [
      "my-agent",
      "my-agent-pr-",
      "my-agent-pr-1x",
      "my-agent-pr-1-pr-2x",
      "xmy-agent-pr-1",
      "My-Agent-pr-1",
      "my-agent-pr-٣",
      "my-agent-pr- 1",
      "my-agent-pr-1 ",
      "my-agent-2-pr-1",
      "other-pr-1",
    ])
      expect(isPreviewOf("my-agent", no), no).toBe(false);
    // A preview of a preview is a preview of that name, not of the first.
    expect(isPreviewOf("my-agent-pr-1", "my-agent-pr-1-pr-2")).toBe(true);
    expect(isPreviewOf("my-agent", "my-agent-pr-1-pr-2")).toBe(false);
  });

  it("a name too long for its preview: said with the room NAME has", () => {
    expect(previewNameProblem("a".repeat(123), 7)).toBeNull();
    const problem = previewNameProblem("a".repeat(123), 77);
    expect(problem).toMatch(
      /would be 129 characters, more than the 128 .*at most 122 characters here \(it has 123\)/,
    );
  });
});
