// The agent configuration of a project directory that `deploy push` ships: the file the
// service's build reads (agent_config_path). Given with --agent-config-path (relative to the
// directory), or the first of AGENT_CONFIG_NAMES at its root. It must be a regular file
// holding a JSON object: a missing or broken one fails the build minutes later, so it is an
// error before anything is sent.
import { lstat } from "node:fs/promises";
import { isAbsolute, join, posix } from "node:path";
import { UsageError } from "../errors.js";
import { readTextFile, unreadableFile } from "../io.js";

/** Looked for at the directory's root, in this order (the spec's name first). */
export const AGENT_CONFIG_NAMES = ["agent.json", "langgraph.json"] as const;

const CONFIG_LIMIT = { maxBytes: 1024 * 1024, what: "an agent configuration" };

export interface AgentConfig {
  /** Relative to the directory, slash-separated: what agent_config_path says. */
  path: string;
  /**
   * Its `dependencies` entries that are strings (paths or package names), as written; `["."]`
   * (the configuration's own directory) when it names none.
   */
  dependencies: string[];
}

export async function findAgentConfig(
  directory: string,
  shown: string,
  given?: string,
): Promise<AgentConfig> {
  if (given !== undefined) {
    const path = relativeInside(given);
    if (!(await isRegularFile(join(directory, path)))) {
      throw new UsageError(`--agent-config-path ${given}: there is no such file in ${shown}`).withHint(
        "Give the path of the agent configuration relative to the directory pushed, e.g. --agent-config-path agent.json.",
      );
    }
    return readConfig(directory, path, shown);
  }
  for (const name of AGENT_CONFIG_NAMES) {
    if (await isRegularFile(join(directory, name))) return readConfig(directory, name, shown);
  }
  throw new UsageError(
    `${shown} has no agent configuration: looked for ${AGENT_CONFIG_NAMES.join(", ")} at its root`,
  ).withHint("Give its path relative to the directory with --agent-config-path PATH.");
}

/** `given` as a clean relative path that stays inside the directory. */
function relativeInside(given: string): string {
  const path = posix.normalize(given.replaceAll("\\", "/")).replace(/^\.\//, "");
  if (given.trim() === "" || isAbsolute(given) || path === ".." || path.startsWith("../") || path === ".") {
    throw new UsageError(
      `--agent-config-path ${JSON.stringify(given)}: give a file inside the directory pushed, relative to it (e.g. agent.json)`,
    );
  }
  return path;
}

async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    return false;
  }
}

async function readConfig(directory: string, path: string, shown: string): Promise<AgentConfig> {
  const label = `${posix.join(shown, path)}`;
  let text: string;
  try {
    text = await readTextFile(join(directory, path), { limit: CONFIG_LIMIT, label });
  } catch (error) {
    throw unreadableFile(label, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Not Node's message: newer ones quote a piece of the file.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const line =
      position === undefined ? "" : ` (line ${text.slice(0, Number(position)).split("\n").length})`;
    throw new UsageError(`${label} is not valid JSON${line}: the build would fail on it`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new UsageError(`${label} is not a JSON object: the build would fail on it`);
  }
  const dependencies = (parsed as { dependencies?: unknown }).dependencies;
  return {
    path,
    dependencies:
      Array.isArray(dependencies) && dependencies.length > 0
        ? dependencies.filter((entry): entry is string => typeof entry === "string")
        : ["."],
  };
}
