// `cpctl completion SHELL`: the script for one shell, generated from the command tree.
import { bashScript } from "./bash.js";
import { fishScript } from "./fish.js";
import type { CommandNode } from "./tree.js";
import { zshScript } from "./zsh.js";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** The file each script is checked in as, under completions/. */
export const COMPLETION_FILES: Record<Shell, string> = {
  bash: "cpctl.bash",
  zsh: "_cpctl",
  fish: "cpctl.fish",
};

export function completionScript(shell: Shell, root: CommandNode): string {
  switch (shell) {
    case "bash":
      return bashScript(root);
    case "zsh":
      return zshScript(root);
    case "fish":
      return fishScript(root);
  }
}
