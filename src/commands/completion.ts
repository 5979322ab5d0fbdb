// `cpctl completion SHELL`: prints the completion script. The scripts are generated from the
// command definitions themselves (every command module is loaded to read its flags), so they
// can never disagree with the binary; the same scripts are checked in under completions/.
import { Argument } from "@commander-js/extra-typings";
import { COMPLETION_FILES, completionScript, SHELLS } from "../completion/index.js";
import { treeFromProgram } from "../completion/tree.js";
import { writeText } from "../output/safe-text.js";
import { examples } from "./parsers.js";
import { defineCommand } from "./spec.js";

export default defineCommand({
  configure: (command) =>
    command.addArgument(new Argument("<shell>", "the shell to complete for").choices(SHELLS)).addHelpText(
      "after",
      `
Completes commands, subcommands, flags, and the values of flags with a fixed set (sources,
deployment types, output formats, statuses, shells). The package holds the same scripts
under completions/ (${Object.values(COMPLETION_FILES).join(", ")}).
${examples(
  "source <(cpctl completion bash)                # bash, this shell only",
  "cpctl completion fish | source                 # fish, this shell only",
  "mkdir -p ~/.local/share/bash-completion/completions && cpctl completion bash > ~/.local/share/bash-completion/completions/cpctl",
  "mkdir -p ~/.zsh/completions && cpctl completion zsh > ~/.zsh/completions/_cpctl  # in $fpath; then a new shell",
  "mkdir -p ~/.config/fish/completions && cpctl completion fish > ~/.config/fish/completions/cpctl.fish",
)}`,
    ),
  run: async (ctx, [shell]) => {
    // The root program with every command configured (every command module loaded: only here).
    writeText(ctx.io.stdout, completionScript(shell, treeFromProgram(await ctx.commandTree())));
  },
});
