// The README's completion lines, run as written by bash in a fresh home: each writes its
// script where it says (they failed there without `mkdir -p`: the directories do not exist
// on a new machine).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { freshDir } from "../helpers/run-cli.js";
import { ROOT } from "./collect.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const BIN = join(ROOT, "bin", "cpctl.cjs");

test("the completion lines work in a fresh home", () => {
  const lines = README.split("\n").filter((line) => /cpctl completion (bash|zsh|fish) >/.test(line));
  expect(lines).toHaveLength(3);
  const home = freshDir("completion-home");
  const script = [`cpctl() { "${process.execPath}" "${BIN}" "$@"; }`, "set -e", ...lines].join("\n");
  const run = spawnSync("bash", ["-c", script], {
    env: { PATH: process.env.PATH ?? "", HOME: home },
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  for (const file of [
    ".local/share/bash-completion/completions/cpctl",
    ".zsh/completions/_cpctl",
    ".config/fish/completions/cpctl.fish",
  ])
    expect(existsSync(join(home, file)), file).toBe(true);
  expect(readFileSync(join(home, ".zsh/completions/_cpctl"), "utf8")).toContain("#compdef cpctl");
});
