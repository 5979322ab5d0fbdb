// `cpctl config set`: changes one key of one profile in the user config file and keeps the
// rest of the file (other keys, comments, order) as it was; and `deploy push` writes the
// `deployment` a project file remembers (setProjectDeployment), the same way. The new text goes to a temporary
// file beside it that is then renamed over it, so a crash never leaves a torn file. A new
// file (and its directory) is created readable by its owner only. The read, the edit and the
// rename happen under the file's lock (lock.ts), so that two writers at once never start
// from the same old text: the second rename would drop the first one's change.
import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, realpath, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Document } from "yaml";
import { OperationError, UsageError } from "../errors.js";
import { withFileLock } from "./lock.js";
import { DEPLOYMENT_KEY, type TrustKey } from "./schema.js";
import type { SettingKey } from "./settings.js";

interface WriteResult {
  /** The file written (the target of a symbolic link, when the user file is one). */
  path: string;
  created: boolean;
  /** The file's permission bits now. */
  mode: number;
}

export async function setProfileValue(
  path: string,
  profile: string,
  key: SettingKey,
  value: string | boolean,
): Promise<WriteResult> {
  return editUserFile(path, (doc, target, { isMap, isScalar }) => {
    const profiles = doc.get("profiles", true);
    if (profiles === undefined || profiles === null || (isScalar(profiles) && profiles.value === null)) {
      doc.set("profiles", doc.createNode({}));
    } else if (!isMap(profiles)) {
      throw new UsageError(`${target}: profiles must map profile names to settings; fix it by hand`);
    }
    const body = doc.getIn(["profiles", profile], true);
    if (body === undefined || body === null || (isScalar(body) && body.value === null)) {
      doc.setIn(["profiles", profile], doc.createNode({ [key]: value }));
    } else if (!isMap(body)) {
      throw new UsageError(`${target}: profiles.${profile} must be a mapping of settings; fix it by hand`);
    } else {
      doc.setIn(["profiles", profile, key], value);
    }
    return true;
  });
}

/** Sets the top-level `defaultProfile` (`cpctl config use`); `changed` is false when it already was `profile`. */
export async function setDefaultProfile(
  path: string,
  profile: string,
): Promise<WriteResult & { changed: boolean }> {
  let changed = false;
  const result = await editUserFile(path, (doc) => {
    if (doc.get("defaultProfile") === profile) return false;
    // A new key goes first, where a reader of the file looks for it.
    if (!doc.has("defaultProfile") && doc.contents && "items" in doc.contents) {
      const pair = doc.createPair("defaultProfile", profile);
      (doc.contents.items as unknown[]).unshift(pair);
    } else doc.set("defaultProfile", profile);
    changed = true;
    return true;
  });
  return { ...result, changed };
}

/** Adds `value` to the top-level list `key` (trustedHosts, trustedDirectories) unless it is there already. */
export async function addToTrustList(
  path: string,
  key: TrustKey,
  value: string,
): Promise<WriteResult & { added: boolean }> {
  let added = false;
  const result = await editUserFile(path, (doc, target, { isSeq, isScalar }) => {
    const list = doc.get(key, true);
    if (list === undefined || list === null || (isScalar(list) && list.value === null)) {
      doc.set(key, doc.createNode([value]));
    } else if (!isSeq(list)) {
      throw new UsageError(`${target}: ${key} must be a list; fix it by hand`);
    } else if (list.items.some((item) => isScalar(item) && item.value === value)) {
      return false;
    } else {
      list.add(doc.createNode(value));
    }
    added = true;
    return true;
  });
  return { ...result, added };
}

/**
 * Writes `deployment: NAME` into a project file (operations/remembered-name.ts): a YAML one
 * (`.cpctlrc`, `.cpctlrc.yaml`, `.cpctlrc.yml`) keeps its comments and other keys, a
 * `.cpctlrc.json` its other keys, their order and its indentation. A missing file is created,
 * readable by all (it holds no credential). `changed` is false when it said NAME already.
 */
export async function setProjectDeployment(
  path: string,
  name: string,
): Promise<WriteResult & { changed: boolean }> {
  let changed = false;
  const edit: TextEdit = path.endsWith(".json")
    ? async (text, target) => {
        const json = jsonObject(text, target);
        if (json.value.deployment === name) return null;
        changed = true;
        const { deployment: _old, ...rest } = json.value;
        return `${JSON.stringify({ [DEPLOYMENT_KEY]: name, ...rest }, null, json.indent)}\n`;
      }
    : yamlEdit((doc) => {
        if (doc.get(DEPLOYMENT_KEY) === name) return false;
        if (!doc.has(DEPLOYMENT_KEY) && doc.contents && "items" in doc.contents) {
          (doc.contents.items as unknown[]).unshift(doc.createPair(DEPLOYMENT_KEY, name));
        } else doc.set(DEPLOYMENT_KEY, name);
        changed = true;
        return true;
      });
  const result = await editConfigFile(path, 0o644, edit);
  return { ...result, changed };
}

/** A JSON config file's object, and the indentation its lines have (two spaces when new or flat). */
function jsonObject(text: string | null, target: string): { value: Record<string, unknown>; indent: string } {
  if (text === null || text.trim() === "") return { value: {}, indent: "  " };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${target}: the file is not valid JSON (${(error as Error).message}); fix it by hand: cpctl will not rewrite a broken one`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new UsageError(`${target}: the file must hold a JSON object; fix it by hand`);
  return { value: value as Record<string, unknown>, indent: /\n([ \t]+)"/.exec(text)?.[1] ?? "  " };
}

type YamlModule = typeof import("yaml");

/** A change to a config file's text: the new text, or null when there is nothing to write. */
type TextEdit = (text: string | null, target: string) => Promise<string | null>;

/** A TextEdit that lets `edit` change the file's YAML document; a file that is not valid YAML, or not a mapping, is left alone. */
function yamlEdit(edit: (doc: Document, target: string, yaml: YamlModule) => boolean): TextEdit {
  return async (text, target) => {
    const yaml = await import("yaml");
    const doc: Document = yaml.parseDocument(text ?? "");
    const error = doc.errors[0];
    if (error) {
      const line = error.linePos?.[0]?.line;
      throw new UsageError(
        `${target}${line ? `:${line}` : ""}: the file is not valid YAML (${error.message.split("\n")[0]}); fix it by hand: cpctl keeps the rest of the file and will not rewrite a broken one`,
      );
    }
    if (doc.contents === null || (yaml.isScalar(doc.contents) && doc.contents.value === null))
      doc.contents = doc.createNode({});
    if (!yaml.isMap(doc.contents))
      throw new UsageError(`${target}: the file must be a mapping of keys (profiles, ...); fix it by hand`);
    return edit(doc, target, yaml) ? doc.toString({ lineWidth: 0 }) : null;
  };
}

/** The user file (following a symbolic link), changed by `edit` and written back when it changed something. */
function editUserFile(
  path: string,
  edit: (doc: Document, target: string, yaml: YamlModule) => boolean,
): Promise<WriteResult> {
  return editConfigFile(path, 0o600, yamlEdit(edit));
}

/**
 * Reads a config file (following a symbolic link), lets `edit` change its text, and writes it
 * back atomically when it did; a new file gets `newMode`.
 */
async function editConfigFile(path: string, newMode: number, edit: TextEdit): Promise<WriteResult> {
  const target = await followLink(path);
  // The lock is lost only when another process judged this one dead (frozen for seconds):
  // then the file may have changed since it was read, so it is read and edited again.
  for (let attempt = 1; ; attempt++) {
    const result = await withFileLock(target, (stillHeld) => editOnce(target, edit, newMode, stillHeld));
    if (result !== LOST) return result;
    if (attempt === 3)
      throw new OperationError(
        `${target}: other processes kept taking the config file's lock; nothing was written, try again`,
      );
  }
}

const LOST = Symbol("lock lost");

async function editOnce(
  target: string,
  edit: TextEdit,
  newMode: number,
  stillHeld: () => boolean,
): Promise<WriteResult | typeof LOST> {
  const existing = await readExisting(target);
  const text = await edit(existing?.text ?? null, target);
  const mode = existing?.mode ?? newMode;
  if (text !== null && !(await writeAtomically(target, text, mode, stillHeld))) return LOST;
  return { path: target, created: existing === null, mode };
}

async function followLink(path: string): Promise<string> {
  try {
    return (await lstat(path)).isSymbolicLink() ? await realpath(path) : path;
  } catch {
    return path;
  }
}

async function readExisting(path: string): Promise<{ text: string; mode: number } | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new OperationError(
      `${path}: cannot read the config file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  try {
    const [text, info] = await Promise.all([handle.readFile("utf8"), handle.stat()]);
    return { text, mode: info.mode & 0o777 };
  } finally {
    await handle.close();
  }
}

/** False (and nothing written) when the lock was found lost just before the rename. */
async function writeAtomically(
  path: string,
  text: string,
  mode: number,
  stillHeld: () => boolean,
): Promise<boolean> {
  const dir = dirname(path);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new OperationError(
      `cannot create ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.chmod(mode); // the umask may have taken bits away from an existing file's mode
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!stillHeld()) {
      await rm(temp, { force: true });
      return false;
    }
    await rename(temp, path);
    return true;
  } catch (error) {
    await rm(temp, { force: true });
    throw new OperationError(
      `cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
}
