// Every command, with the one-line summary shown by `cpctl --help`. A command's module (its
// flags and handler, and whatever heavy libraries it imports) is loaded only when that
// command runs or its help is asked for: start-up stays close to `node -e 0`.
import type { CommandSpec } from "./spec.js";

export interface CommandEntry {
  /**
   * e.g. ["deploy", "create"] or ["schema"]. A command is nested under the one its path's
   * first words name (a group, or an entry that comes before it), at any depth.
   */
  path: readonly string[];
  summary: string;
  /** Where `cpctl --help` lists a top-level command that is no group's (its children follow it). */
  heading?: Heading;
  /** Other names it answers to, as gh and fly users type them (`deploy rm`). */
  aliases?: readonly string[];
  load: () => Promise<{ default: CommandSpec }>;
}

/** The headings `cpctl --help` and docs/commands.md list the commands under, in this order. */
export const HEADINGS = ["Deployments", "Discovery", "Setup", "Local control plane"] as const;
export type Heading = (typeof HEADINGS)[number];

interface CommandGroup {
  name: string;
  summary: string;
  heading: Heading;
}

export const GROUPS: readonly CommandGroup[] = [
  { name: "deploy", summary: "Create, inspect, change and wait for deployments", heading: "Deployments" },
  {
    name: "secrets",
    summary: "A deployment's secrets: list, set, unset, import (merge-safe patches)",
    heading: "Deployments",
  },
  {
    name: "integrations",
    summary: "Git-hosting integrations a gitrepo deployment can use",
    heading: "Discovery",
  },
  {
    name: "listeners",
    summary: "Listeners a self-hosted deployment runs on: list, get, create, update, delete",
    heading: "Discovery",
  },
  { name: "config", summary: "Profiles and the effective settings", heading: "Setup" },
];

export const COMMANDS: readonly CommandEntry[] = [
  {
    path: ["deploy", "push"],
    summary: "Ship a project directory: create or update, upload, wait",
    load: () => import("./deploy/push.js"),
  },
  {
    path: ["deploy", "create"],
    summary: "Create a deployment from flags or a file",
    load: () => import("./deploy/create.js"),
  },
  {
    path: ["deploy", "list"],
    summary: "List deployments, with filters",
    load: () => import("./deploy/list.js"),
  },
  { path: ["deploy", "get"], summary: "Show one deployment", load: () => import("./deploy/get.js") },
  {
    path: ["deploy", "status"],
    summary: "Show a deployment's address, health and revisions on one screen",
    load: () => import("./deploy/status.js"),
  },
  {
    path: ["deploy", "patch"],
    summary: "Change a deployment; says whether a new revision started",
    load: () => import("./deploy/patch.js"),
  },
  {
    path: ["deploy", "wait"],
    summary: "Wait until a revision is deployed or fails",
    load: () => import("./deploy/wait.js"),
  },
  {
    path: ["deploy", "apply"],
    summary: "Create or minimally patch a deployment to match a file",
    load: () => import("./deploy/apply.js"),
  },
  {
    path: ["deploy", "diff"],
    summary: "Show what `apply` would change",
    load: () => import("./deploy/diff.js"),
  },
  {
    path: ["deploy", "delete"],
    aliases: ["rm"],
    summary: "Delete deployments (several in bulk, 100 a call)",
    load: () => import("./deploy/delete.js"),
  },
  {
    path: ["deploy", "prune"],
    summary: "Delete preview deployments (NAME-pr-N): one pull request's, or stale ones",
    load: () => import("./deploy/prune.js"),
  },
  {
    path: ["deploy", "revisions"],
    summary: "List a deployment's revisions, newest first",
    load: () => import("./deploy/revisions.js"),
  },
  {
    path: ["deploy", "logs"],
    summary: "Show a deployment's runtime log, or a revision's build log",
    load: () => import("./deploy/logs.js"),
  },
  {
    path: ["deploy", "rollback"],
    summary: "Roll back to the last good revision (or --to one)",
    load: () => import("./deploy/rollback.js"),
  },
  {
    path: ["deploy", "redeploy"],
    summary: "Start a new revision from the latest (or --revision): retry or restart",
    load: () => import("./deploy/redeploy.js"),
  },
  {
    path: ["deploy", "upload"],
    summary: "Upload a source directory or tarball for an internal_source deployment",
    load: () => import("./deploy/upload.js"),
  },
  {
    path: ["secrets", "list"],
    summary: "List a deployment's secrets and secret references (values masked)",
    load: () => import("./secrets/list.js"),
  },
  {
    path: ["secrets", "set"],
    summary: "Set secrets by name, keep the others (deploy patch --secret)",
    load: () => import("./secrets/set.js"),
  },
  {
    path: ["secrets", "unset"],
    summary: "Remove secrets by name, keep the others (deploy patch --unset-secret)",
    load: () => import("./secrets/unset.js"),
  },
  {
    path: ["secrets", "import"],
    summary: "Set secrets from a dotenv file, keep the others (deploy patch --secrets-file)",
    load: () => import("./secrets/import.js"),
  },
  {
    path: ["integrations", "list"],
    summary: "List git integrations (IDs for --integration-id)",
    load: () => import("./integrations/list.js"),
  },
  {
    path: ["integrations", "repos"],
    summary: "List the repositories a git integration can reach (URLs for --repo-url)",
    load: () => import("./integrations/repos.js"),
  },
  {
    path: ["listeners", "list"],
    summary: "List listeners (IDs for --listener-id)",
    load: () => import("./listeners/list.js"),
  },
  {
    path: ["listeners", "get"],
    summary: "Show one listener, by ID or compute ID",
    load: () => import("./listeners/get.js"),
  },
  {
    path: ["listeners", "create"],
    summary: "Create a k8s listener for a compute ID",
    load: () => import("./listeners/create.js"),
  },
  {
    path: ["listeners", "update"],
    summary: "Change a listener's namespaces (the whole list, or add and remove)",
    load: () => import("./listeners/update.js"),
  },
  {
    path: ["listeners", "delete"],
    summary: "Delete a listener that no deployment uses",
    load: () => import("./listeners/delete.js"),
  },
  {
    path: ["config", "show"],
    summary: "Show the effective settings and where each comes from",
    load: () => import("./config/show.js"),
  },
  { path: ["config", "list"], summary: "List profiles", load: () => import("./config/list.js") },
  {
    path: ["config", "get"],
    summary: "Print one setting of a profile",
    load: () => import("./config/get.js"),
  },
  {
    path: ["config", "set"],
    summary: "Set one setting of a profile in the user config file",
    load: () => import("./config/set.js"),
  },
  {
    path: ["config", "use"],
    summary: "Make a profile the default (the user file's defaultProfile)",
    load: () => import("./config/use.js"),
  },
  {
    path: ["config", "path"],
    summary: "Print the config files cpctl reads",
    load: () => import("./config/path.js"),
  },
  {
    path: ["completion"],
    summary: "Print the shell completion script (bash, zsh, fish)",
    heading: "Setup",
    load: () => import("./completion.js"),
  },
  {
    path: ["schema"],
    summary: "Print the JSON Schema of the deployment file",
    heading: "Setup",
    load: () => import("./schema.js"),
  },
  {
    path: ["emulator"],
    summary: "Run the local control plane emulator",
    heading: "Local control plane",
    load: () => import("./emulator/run.js"),
  },
  // The emulator's controls, sent to the profile's address with its credentials. (The
  // emulator itself comes first: its command is their parent.)
  {
    path: ["emulator", "fail-next"],
    summary: "Make the next revision fail at a stage",
    load: () => import("./emulator/fail-next.js"),
  },
  {
    path: ["emulator", "fail"],
    summary: "Make a revision in progress fail at a stage",
    load: () => import("./emulator/fail.js"),
  },
  {
    path: ["emulator", "clock"],
    summary: "Show the emulator's clock, or advance it",
    load: () => import("./emulator/clock.js"),
  },
  {
    path: ["emulator", "health"],
    summary: "Make a deployment's agent server fail its health check, or pass again",
    load: () => import("./emulator/health.js"),
  },
  {
    path: ["emulator", "push"],
    summary: "Simulate a push to a gitrepo deployment's branch",
    load: () => import("./emulator/push.js"),
  },
  {
    path: ["emulator", "faults"],
    summary: "List, add or clear injected API faults",
    load: () => import("./emulator/faults.js"),
  },
  {
    path: ["emulator", "stats"],
    summary: "Count the API requests the emulator received",
    load: () => import("./emulator/stats.js"),
  },
  {
    path: ["emulator", "tracing-projects"],
    summary: "List your tracing projects",
    load: () => import("./emulator/tracing-projects.js"),
  },
  {
    path: ["emulator", "reset"],
    summary: "Delete everything the emulator holds",
    load: () => import("./emulator/reset.js"),
  },
];

/**
 * The entry named by the leading words of argv, if any (options are skipped): the longest
 * that matches, so that `emulator clock` is the control and `emulator --port 0` the emulator.
 * A command's last word may be one of its aliases.
 */
export function findEntry(words: readonly string[]): CommandEntry | undefined {
  let found: CommandEntry | undefined;
  for (const entry of COMMANDS) {
    const last = entry.path.length - 1;
    const named = entry.path.every(
      (part, i) => words[i] === part || (i === last && entry.aliases?.includes(words[i] ?? "")),
    );
    if (named && entry.path.length > (found?.path.length ?? 0)) found = entry;
  }
  return found;
}

/**
 * What users of other deploy tools type, and what cpctl calls it: said when the command or
 * option is unknown, in place of the nearest spelling.
 */
export const FAMILIAR_NAMES: Readonly<Record<string, string>> = {
  version: "cpctl --version",
  "deploy restart": "cpctl deploy redeploy <deployment> (a new revision from the latest)",
  "deploy history": "cpctl deploy revisions <deployment>",
  "deploy scale": "cpctl deploy patch <deployment> --min-scale N --max-scale N",
  "deploy remove": "cpctl deploy delete <deployment> (or deploy rm)",
  "deploy ls": "cpctl deploy list",
  "deploy show": "cpctl deploy get <deployment>",
  "deploy deploy": "cpctl deploy push [DIR] --name NAME",
};

/** Options of other tools, by command: the flag cpctl has for it. */
export const FAMILIAR_OPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "deploy logs": { "--tail": "--limit N (the newest N entries)", "-n": "--limit N", "--lines": "--limit N" },
};
