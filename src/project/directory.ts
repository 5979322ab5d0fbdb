// The directory `deploy push` ships, checked before anything else: it must exist, be a
// directory and be readable (exit 2 otherwise, nothing sent).
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { UsageError } from "../errors.js";

export interface ProjectDirectory {
  absolute: string;
  /** As the user gave it, for messages. */
  shown: string;
  /** Its own name: the default deployment name. */
  name: string;
}

export async function projectDirectory(cwd: string, given: string): Promise<ProjectDirectory> {
  const absolute = resolve(cwd, given);
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(absolute)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === "ENOENT"
        ? `${given}: no such directory`
        : `${given}: cannot read it (${code ?? String(error)})`,
    );
  }
  if (!isDirectory) {
    throw new UsageError(`${given} is not a directory: deploy push ships a project directory`).withHint(
      "To send a tarball you made yourself: cpctl deploy upload DEPLOYMENT FILE --patch",
    );
  }
  try {
    await access(absolute, constants.R_OK | constants.X_OK);
  } catch (error) {
    throw new UsageError(
      `${given}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  return { absolute, shown: given, name: basename(absolute) };
}
