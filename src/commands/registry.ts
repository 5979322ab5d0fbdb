// Every command, with the one-line summary shown by `cpctl --help`. A command's module (its
// flags and handler, and whatever heavy libraries it imports) is loaded only when that
// command runs or its help is asked for: start-up stays close to `node -e 0`.
import type { CommandSpec } from "./spec.js";

export interface CommandEntry {
  path: readonly string[];
  summary: string;
  load: () => Promise<{ default: CommandSpec }>;
}

export interface CommandGroup {
  name: string;
  summary: string;
  heading: string;
}

export const GROUPS: readonly CommandGroup[] = [
  { name: "deploy", summary: "Create, inspect, change and wait for deployments", heading: "Deployments" },
  { name: "integrations", summary: "Git-hosting integrations a gitrepo deployment can use", heading: "Discovery" },
  { name: "listeners", summary: "Listeners a self-hosted deployment can run on", heading: "Discovery" },
  { name: "config", summary: "Profiles and the effective settings", heading: "Setup" },
];

export const COMMANDS: readonly CommandEntry[] = [
  { path: ["deploy", "create"], summary: "Create a deployment from flags or a file", load: () => import("./deploy/create.js") },
  { path: ["deploy", "list"], summary: "List deployments, with filters", load: () => import("./deploy/list.js") },
  { path: ["deploy", "get"], summary: "Show one deployment", load: () => import("./deploy/get.js") },
  { path: ["deploy", "patch"], summary: "Change a deployment; says whether a new revision started", load: () => import("./deploy/patch.js") },
  { path: ["deploy", "wait"], summary: "Wait until a revision is deployed or fails", load: () => import("./deploy/wait.js") },
  { path: ["integrations", "list"], summary: "List git integrations (IDs for --integration-id)", load: () => import("./integrations/list.js") },
  { path: ["listeners", "list"], summary: "List listeners (IDs for --listener-id)", load: () => import("./listeners/list.js") },
  { path: ["emulator"], summary: "Run the local control plane emulator", load: () => import("./emulator.js") },
];

/** The entry named by the leading words of argv, if any (options are skipped). */
export function findEntry(words: readonly string[]): CommandEntry | undefined {
  return COMMANDS.find((entry) => entry.path.every((part, i) => words[i] === part));
}
