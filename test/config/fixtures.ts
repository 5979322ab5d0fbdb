// Temporary homes and projects holding config files, for the config tests.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { freshDir } from "../helpers/run-cli.js";

export interface Sandbox {
  home: string;
  /** The working directory: a project folder inside the home. */
  cwd: string;
  userFile: string;
  /** Writes the user config file (mode 0600 unless given). */
  user(text: string, mode?: number): string;
  /** Writes a project file named `name` in the working directory (mode 0600 unless given). */
  project(name: string, text: string, mode?: number): string;
}

export function sandbox(): Sandbox {
  const home = freshDir("home");
  const cwd = join(home, "work", "project");
  mkdirSync(cwd, { recursive: true });
  const userFile = join(home, ".config", "cpctl", "config.yaml");
  const write = (path: string, text: string, mode = 0o600) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    chmodSync(path, mode);
    return path;
  };
  return {
    home,
    cwd,
    userFile,
    user: (text, mode) => write(userFile, text, mode),
    project: (name, text, mode) => write(join(cwd, name), text, mode),
  };
}

export const TENANT_A = "11111111-1111-4111-8111-111111111111";
export const TENANT_B = "22222222-2222-4222-8222-222222222222";
export const TENANT_C = "33333333-3333-4333-8333-333333333333";
