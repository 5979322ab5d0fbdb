// Reading, writing and deleting inside plain JSON values by path (`["source_config",
// "resource_spec", "sidecars", 0, "image"]`): what `--set`, the body builder and the merge
// of a partial change share.

export type Path = readonly (string | number)[];

type Node = Record<string | number, unknown>;

export function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Node)[part];
  }
  return node;
}

/** Writes a value at a path, creating objects and arrays on the way. */
export function setAt(target: Record<string, unknown>, path: Path, value: unknown): void {
  let node: Node = target;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (next === null || typeof next !== "object") node[key] = typeof path[i + 1] === "number" ? [] : {};
    node = node[key] as Node;
  });
}

/** Deletes a key (or removes a list item) at `path`; a path that leads nowhere changes nothing. */
export function deleteAt(target: unknown, path: Path): void {
  const parent = getAt(target, path.slice(0, -1));
  const last = path.at(-1);
  if (last === undefined) return;
  if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
  else if (parent !== null && typeof parent === "object") delete (parent as Node)[last];
}

/**
 * The one key a JavaScript object cannot hold as data: `obj["__proto__"] = x` sets the
 * prototype, so a copy made by assignment drops it without a word. Input that uses it is
 * refused (manifest/set-path.ts, manifest/file.ts) rather than lost on the way.
 */
export const PROTO_KEY = "__proto__";

/** The path of the first own key `__proto__` in a JSON value (nested ones included), or null. */
export function protoKeyPath(value: unknown, path: Path = []): Path | null {
  if (value === null || typeof value !== "object") return null;
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    if (key === PROTO_KEY && !Array.isArray(value)) return at;
    const found = protoKeyPath(child, at);
    if (found) return found;
  }
  return null;
}

/** What the refusal says, after where the key is. */
export const PROTO_KEY_REFUSED = `a key named "${PROTO_KEY}" is refused: cpctl would drop it, not send it; rename it`;
