// The completion scripts: the checked-in files are what `cpctl completion SHELL` prints (a
// test fails when they are stale), each parses in its shell, and each completes commands,
// subcommands, flags and enum values when the shell asks.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { COMMANDS } from "../../src/commands/registry.js";
import { COMPLETION_FILES, SHELLS, type Shell } from "../../src/completion/index.js";
import { SETTING_KEYS } from "../../src/config/keys.js";
import { TRUST_KEYS } from "../../src/config/schema.js";
import {
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  LOG_LEVELS,
  OUTPUT_FORMATS,
  REVISION_STATUSES,
  SOURCES,
} from "../../src/model/enums.js";
import { runCli } from "../helpers/run-cli.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HELPERS = fileURLToPath(new URL("./helpers/", import.meta.url));

function installed(shell: string): boolean {
  return spawnSync(shell, ["-c", "exit 0"], { stdio: "ignore" }).status === 0;
}
const HAS = { bash: installed("bash"), zsh: installed("zsh"), fish: installed("fish") };
/** A test's name says when it is skipped, and why; the run's output says it once more. */
const needs = (shell: Shell) => (HAS[shell] ? "" : ` (skipped: ${shell} is not installed)`);
for (const shell of SHELLS) {
  if (!HAS[shell]) {
    console.warn(
      `SKIPPED: ${shell} is not installed, so its completion script is neither parsed nor run (.ci/run installs it)`,
    );
  }
}

const scripts = {} as Record<Shell, string>;
let dir = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cpctl-completion-"));
  for (const shell of SHELLS) {
    const result = await runCli(["completion", shell]);
    expect(result.code, result.stderr).toBe(0);
    scripts[shell] = result.stdout;
    writeFileSync(join(dir, COMPLETION_FILES[shell]), result.stdout);
  }
  // Files for the file-name completions to find.
  writeFileSync(join(dir, "deploy.yaml"), "name: x\n");
  writeFileSync(join(dir, "deploy.json"), "{}\n");
});

describe("the checked-in scripts", () => {
  test.each(SHELLS)(
    "completions/%s is what `cpctl completion` prints (regenerate: npm run completions)",
    (shell) => {
      const file = join(ROOT, "completions", COMPLETION_FILES[shell]);
      const checkedIn = readFileSync(file, "utf8");
      if (checkedIn !== scripts[shell]) {
        expect.fail(
          `completions/${COMPLETION_FILES[shell]} is stale: regenerate with \`npm run completions\` (that is: npm run build && node scripts/gen-completions.mjs)`,
        );
      }
    },
  );

  test.each(SHELLS)("the %s script names every command and every enum value", (shell) => {
    const script = scripts[shell];
    for (const entry of COMMANDS) for (const word of entry.path) expect(script).toContain(word);
    const enums = [SOURCES, DEPLOYMENT_TYPES, OUTPUT_FORMATS, REVISION_STATUSES, DEPLOYMENT_STATUSES, SHELLS];
    for (const values of enums) for (const value of values) expect(script).toContain(value);
  });

  test("`cpctl completion` refuses an unknown shell with exit 2", async () => {
    const result = await runCli(["completion", "tcsh"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bash, zsh, fish|"bash", "zsh", "fish"/);
  });
});

describe("syntax", () => {
  for (const shell of SHELLS) {
    test.skipIf(!HAS[shell])(`${shell} -n accepts the ${shell} script${needs(shell)}`, () => {
      const result = spawnSync(shell, ["-n", join(dir, COMPLETION_FILES[shell])], { encoding: "utf8" });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
    });
  }
});

/** What bash offers: COMP_WORDS are the words of the line, the last one being completed. */
function bashComplete(...words: string[]): string[] {
  const program = [
    // Strict mode, as some users have it in their interactive shell.
    "set -u",
    `source ${JSON.stringify(join(dir, COMPLETION_FILES.bash))}`,
    'COMP_WORDS=("$@")',
    "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))",
    'COMP_LINE="${COMP_WORDS[*]}"',
    "_cpctl",
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join("\n");
  const result = spawnSync("bash", ["--norc", "-c", program, "bash", ...words], {
    cwd: dir,
    encoding: "utf8",
    timeout: 10_000,
  });
  expect(result.stderr).toBe("");
  return result.stdout.split("\n").filter(Boolean).sort();
}

const sorted = (values: readonly string[]) => [...values].sort();

describe.skipIf(!HAS.bash)(`bash completes${needs("bash")}`, () => {
  test("the commands and groups at the root", () => {
    expect(bashComplete("cpctl", "")).toEqual(
      sorted([
        "deploy",
        "secrets",
        "integrations",
        "listeners",
        "config",
        "completion",
        "schema",
        "emulator",
      ]),
    );
  });
  test("subcommands, by prefix, after global flags and their values", () => {
    expect(bashComplete("cpctl", "deploy", "cr")).toEqual(["create"]);
    // "deploy" is the value of --profile here, not a command.
    expect(bashComplete("cpctl", "--profile", "deploy", "-o", "json", "config", "")).toEqual(
      sorted(["show", "list", "get", "set", "use", "path"]),
    );
    expect(bashComplete("cpctl", "--profile", "prod", "deploy", "rev")).toEqual(["revisions"]);
    expect(bashComplete("cpctl", "config", "")).toEqual(
      sorted(["show", "list", "get", "set", "use", "path"]),
    );
  });
  test("a command's own flags and the global ones", () => {
    expect(bashComplete("cpctl", "deploy", "create", "--so")).toEqual(["--source", "--source-tarball-path"]);
    const flags = bashComplete("cpctl", "deploy", "wait", "my-agent", "--");
    expect(flags).toEqual(
      expect.arrayContaining(["--revision", "--timeout", "--interval", "--output", "--no-input", "--help"]),
    );
    expect(flags).not.toContain("--source");
  });
  test("enum values of flags, as `--flag value` and `--flag=value`", () => {
    expect(bashComplete("cpctl", "deploy", "create", "--source", "")).toEqual(sorted(SOURCES));
    expect(bashComplete("cpctl", "deploy", "create", "--source", "=", "ex")).toEqual(["external_container"]);
    expect(bashComplete("cpctl", "deploy", "create", "--deployment-type", "")).toEqual(
      sorted(DEPLOYMENT_TYPES),
    );
    expect(bashComplete("cpctl", "deploy", "patch", "x", "--revision-source", "")).toEqual(
      sorted(["gitrepo", "internal_container", "internal_source"]),
    );
    expect(bashComplete("cpctl", "-o", "")).toEqual(sorted(OUTPUT_FORMATS));
    expect(bashComplete("cpctl", "deploy", "list", "--output=j")).toEqual(["--output=json"]);
    expect(bashComplete("cpctl", "deploy", "list", "--status", "")).toEqual(sorted(DEPLOYMENT_STATUSES));
    expect(bashComplete("cpctl", "deploy", "revisions", "my-agent", "--status", "DEPLOY")).toEqual(
      sorted(REVISION_STATUSES.filter((s) => s.startsWith("DEPLOY"))),
    );
  });
  test("log levels, and the keys of `config get` and `config set`", () => {
    expect(bashComplete("cpctl", "deploy", "logs", "my-agent", "--level", "")).toEqual(sorted(LOG_LEVELS));
    expect(bashComplete("cpctl", "deploy", "logs", "my-agent", "--level", "W")).toEqual(["WARNING"]);
    expect(bashComplete("cpctl", "config", "get", "")).toEqual(
      sorted(["profile", ...SETTING_KEYS, "deployment"]),
    );
    expect(bashComplete("cpctl", "config", "set", "")).toEqual(sorted([...SETTING_KEYS, ...TRUST_KEYS]));
    expect(bashComplete("cpctl", "config", "set", "baseUrl", "")).toEqual([]);
  });
  test("shells for `completion`, file names for files, nothing for free text", () => {
    expect(bashComplete("cpctl", "completion", "")).toEqual(sorted(SHELLS));
    expect(bashComplete("cpctl", "deploy", "apply", "-f", "deploy.")).toEqual(["deploy.json", "deploy.yaml"]);
    expect(bashComplete("cpctl", "deploy", "upload", "my-agent", "deploy.y")).toEqual(["deploy.yaml"]);
    expect(bashComplete("cpctl", "deploy", "create", "--name", "")).toEqual([]);
  });
});

describe.skipIf(!HAS.fish)(`fish completes${needs("fish")}`, () => {
  const fishComplete = (line: string) => {
    const program = `source ${JSON.stringify(join(dir, COMPLETION_FILES.fish))}; complete -C ${JSON.stringify(line)}`;
    const result = spawnSync("fish", ["--no-config", "-c", program], {
      cwd: dir,
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(result.stderr).toBe("");
    return result.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split("\t")[0]!)
      .sort();
  };
  test("commands, flags, enum values and files", () => {
    expect(fishComplete("cpctl ")).toEqual(
      sorted([
        "deploy",
        "secrets",
        "integrations",
        "listeners",
        "config",
        "completion",
        "schema",
        "emulator",
      ]),
    );
    expect(fishComplete("cpctl --profile prod deploy cr")).toEqual(["create"]);
    expect(fishComplete("cpctl deploy create --so")).toEqual(["--source", "--source-tarball-path"]);
    expect(fishComplete("cpctl deploy create --source ")).toEqual(sorted(SOURCES));
    expect(fishComplete("cpctl -o ")).toEqual(sorted(OUTPUT_FORMATS));
    expect(fishComplete("cpctl deploy list --status ")).toEqual(sorted(DEPLOYMENT_STATUSES));
    expect(fishComplete("cpctl completion ")).toEqual(sorted(SHELLS));
    expect(fishComplete("cpctl deploy logs x --level ")).toEqual(sorted(LOG_LEVELS));
    expect(fishComplete("cpctl config get ")).toEqual(sorted(["profile", ...SETTING_KEYS, "deployment"]));
    expect(fishComplete("cpctl deploy apply -f deploy.")).toEqual(["deploy.json", "deploy.yaml"]);
  });
});

describe.skipIf(!HAS.zsh)(`zsh completes${needs("zsh")}`, () => {
  const zshComplete = (line: string) => {
    const result = spawnSync("zsh", ["-f", join(HELPERS, "zsh-capture.zsh"), dir, line], {
      cwd: dir,
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(result.status, result.stderr).toBe(0);
    return result.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split(" -- ")[0]!)
      .sort();
  };
  // About a second a line: each starts an interactive zsh with compinit.
  test("commands, flags, enum values and files", { timeout: 90_000 }, () => {
    expect(zshComplete("cpctl ")).toEqual(
      sorted([
        "deploy",
        "secrets",
        "integrations",
        "listeners",
        "config",
        "completion",
        "schema",
        "emulator",
      ]),
    );
    expect(zshComplete("cpctl --profile prod deploy cr")).toEqual(["create"]);
    expect(zshComplete("cpctl deploy create --so")).toEqual(["--source", "--source-tarball-path"]);
    expect(zshComplete("cpctl deploy create --source ")).toEqual(sorted(SOURCES));
    expect(zshComplete("cpctl deploy list -o ")).toEqual(sorted(OUTPUT_FORMATS));
    expect(zshComplete("cpctl deploy revisions x --status ")).toEqual(sorted(REVISION_STATUSES));
    expect(zshComplete("cpctl completion ")).toEqual(sorted(SHELLS));
    expect(zshComplete("cpctl deploy logs x --level ")).toEqual(sorted(LOG_LEVELS));
    expect(zshComplete("cpctl config set ")).toEqual(sorted([...SETTING_KEYS, ...TRUST_KEYS]));
    expect(zshComplete("cpctl deploy apply -f deploy.")).toEqual(["deploy.json", "deploy.yaml"]);
  });
});
