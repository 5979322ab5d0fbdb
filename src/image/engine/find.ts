// The local container engine `--image` goes through: docker, else podman, found on PATH (the
// environment cpctl was given), or the one `--engine` names.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { UsageError } from "../../errors.js";
import type { Env } from "../../io.js";

export const ENGINES = ["docker", "podman"] as const;
export type EngineName = (typeof ENGINES)[number];

export interface Engine {
  name: EngineName;
  /** The executable's full path. */
  path: string;
}

export function findEngine(env: Env, wanted?: EngineName): Engine {
  const candidates = wanted ? [wanted] : ENGINES;
  for (const name of candidates) {
    const path = onPath(name, env);
    if (path) return { name, path };
  }
  if (wanted) {
    throw new UsageError(
      `--engine ${wanted}: ${wanted} is not on PATH; install it, pick the other engine, or push a saved image with --image-archive FILE (no engine needed)`,
    );
  }
  throw new UsageError(
    "--image needs docker or podman, and neither is on PATH: install one, or save the image to a file elsewhere (docker save IMAGE -o image.tar) and push it with --image-archive image.tar (no engine needed)",
  );
}

/** The engine that is not `name`, when it is on PATH too: what to try when `name` cannot run. */
export function otherEngineOnPath(name: EngineName, env: Env): EngineName | null {
  const other = name === "docker" ? "podman" : "docker";
  return onPath(other, env) ? other : null;
}

function onPath(name: string, env: Env): string | null {
  const extensions = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const extension of extensions) {
      const candidate = join(dir, name + extension.toLowerCase());
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not there, or not executable: the next directory.
      }
    }
  }
  return null;
}
