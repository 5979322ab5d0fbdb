// A directory remembers its deployment: the `deployment` key of its own project file
// (.cpctlrc.yaml or another of config/paths.ts's names, in the directory itself, never one
// above it). `deploy push` reads it when --name is absent, in CI too, and says so; after a
// push from a terminal that had no such key, it offers to write it (default yes). cpctl's own
// project files are never packed (upload/walk.ts), so remembering changes no tarball.
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { projectFileOf } from "../config/files.js";
import type { ConfigFile } from "../config/schema.js";
import type { Ctx } from "../context.js";
import { CliError, InterruptedError } from "../errors.js";
import type { ProjectDirectory } from "../project/directory.js";
import { askYesNo } from "./confirm.js";

/** What the pushed directory's project file says, and where a remembered name would go. */
export interface Memory {
  directory: ProjectDirectory;
  /** The directory's own project file (the one a run there reads); null when it has none. */
  own: ConfigFile | null;
  /** The project file a run in the directory reads from a directory above it; null when none. */
  above: ConfigFile | null;
}

/** The pushed directory's memory: its own project file, or the one above it that a run there reads. */
export async function readMemory(ctx: Ctx, directory: ProjectDirectory): Promise<Memory> {
  const nearest = await projectFileOf(directory.absolute, (await ctx.settings()).config!);
  const own = nearest && dirname(nearest.path) === directory.absolute ? nearest : null;
  return { directory, own, above: own ? null : nearest };
}

/** The name the directory remembers, said on stderr with where it came from; null when none. */
export function rememberedName(ctx: Ctx, memory: Memory): string | null {
  const name = memory.own?.deployment ?? null;
  if (name !== null) ctx.log.info(`deployment ${name} (from ${shownPath(ctx, memory.own!.path)})`);
  return name;
}

/**
 * After a push from a terminal to `name`, which the directory does not remember: asks whether
 * to write it into the directory's project file (created as .cpctlrc.yaml when it has none), or
 * says why it cannot. A file that cannot be written is a warning: the push is done.
 */
export async function offerToRemember(ctx: Ctx, memory: Memory, name: string): Promise<void> {
  const { directory, own, above } = memory;
  const where = directory.shown;
  if (!own && above) {
    ctx.log.info(
      `not offering to remember deployment ${name} for ${where}: a project file there would hide ${shownPath(ctx, above.path)} (cpctl reads the nearest one only)`,
    );
    return;
  }
  const path = own?.path ?? join(directory.absolute, ".cpctlrc.yaml");
  const shown = shownPath(ctx, path);
  const file = basename(path);
  if (file === "package.json" || file.endsWith(".mjs")) {
    ctx.log.info(
      file === "package.json"
        ? `not offering to remember deployment ${name}: ${shown} is packed with the project (writing its "cpctl" field would make the next push a new revision); add "deployment": "${name}" to that field yourself, or move cpctl's settings to .cpctlrc.yaml`
        : `not offering to remember deployment ${name}: ${shown} is code, which cpctl does not edit; add deployment: "${name}" to the object it exports`,
    );
    return;
  }
  let yes: boolean;
  try {
    yes = await askYesNo(ctx, `Remember deployment ${name} for ${where} in ${shown}?`, true);
  } catch (error) {
    if (!(error instanceof InterruptedError)) throw error;
    throw new InterruptedError(
      `interrupted at the question: the push to ${name} is done; nothing was remembered`,
    );
  }
  if (!yes) return;
  const { setProjectDeployment } = await import("../config/write.js");
  try {
    const written = await setProjectDeployment(path, name);
    ctx.log.info(
      `${written.created ? "created" : "wrote"} ${shown}: deployment: ${name} (deploy push in ${where} reads it when --name is absent)`,
    );
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    ctx.log.warn(`deployment ${name} is not remembered: ${error.message}`);
  }
}

/** A file as the user would name it from the working directory: ./.cpctlrc.yaml, ./agent/.cpctlrc.yaml, ../.cpctlrc.yaml. */
function shownPath(ctx: Ctx, path: string): string {
  const shown = relative(ctx.cwd, path);
  if (isAbsolute(shown)) return path;
  return shown.startsWith("..") ? shown : `./${shown}`;
}
