import { describe, expect, test } from "vitest";
import { EXIT } from "./exit-codes.js";
import { fitHelpText, rootHelpFooter } from "./help.js";

describe("fitHelpText", () => {
  test("leaves text that fits as written", () => {
    const text = "Shows things.\nTwo lines.\n\nExamples:\n  cpctl x\n";
    expect(fitHelpText(text, 40)).toBe(text);
  });

  test("a paragraph with a line too wide is wrapped between words, up to a heading", () => {
    const text =
      "Writes one setting of one profile into the user config file,\nkeeping the rest.\nExamples:\n  cpctl x";
    expect(fitHelpText(text, 30).split("\n")).toEqual([
      "Writes one setting of one",
      "profile into the user config",
      "file, keeping the rest.",
      "Examples:",
      "  cpctl x",
    ]);
  });

  test("an example continues after ` \\`, broken before an option; its comment goes above it", () => {
    const text =
      "Examples:\n  cpctl deploy create --name my-agent --source gitrepo --repo-ref main   # a comment";
    expect(fitHelpText(text, 40).split("\n")).toEqual([
      "Examples:",
      "  # a comment",
      "  cpctl deploy create --name my-agent \\",
      "      --source gitrepo --repo-ref main",
    ]);
  });

  test("a two-column line wraps in its column, or under its name when the column is too narrow", () => {
    const line = "  CPCTL_API_KEY    API key, sent as X-Api-Key (no flag: keep keys out of argv)";
    expect(fitHelpText(line, 60).split("\n")).toEqual([
      "  CPCTL_API_KEY    API key, sent as X-Api-Key (no flag: keep",
      "                   keys out of argv)",
    ]);
    expect(fitHelpText(line, 40).split("\n")).toEqual([
      "  CPCTL_API_KEY",
      "      API key, sent as X-Api-Key (no",
      "      flag: keep keys out of argv)",
    ]);
  });
});

describe("the root help's footer", () => {
  test("its examples use the emulator's built-in profile, as the README does", () => {
    const examples = rootHelpFooter().split("Examples:\n")[1]!.split("\n\n")[0]!;
    expect(examples).toContain("export CPCTL_PROFILE=local");
    expect(examples).not.toMatch(/CPCTL_API_KEY=|CPCTL_BASE_URL=/);
  });

  test("names every exit code", () => {
    const line = rootHelpFooter()
      .split("\n")
      .find((text) => text.startsWith("Exit codes:"))!;
    for (const code of new Set(Object.values(EXIT))) expect(line).toMatch(new RegExp(`\\b${code} `));
  });
});
