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
