// Loads a cpctl.config.mjs file. In a module of its own, loaded only when there is such a
// file (config/files.ts is on every command's path).
import { statSync } from "node:fs";
import { pathToFileURL } from "node:url";

/** The file's mtime in the URL makes a long-lived process (the tests) see a changed file. */
export async function importModule(path: string): Promise<unknown> {
  const url = pathToFileURL(path);
  url.searchParams.set("mtime", String(statSync(path).mtimeMs));
  const module = (await import(url.href)) as { default?: unknown };
  return module.default;
}
