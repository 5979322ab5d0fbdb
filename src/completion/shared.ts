// What the three shell scripts share: which flags a command accepts, and the tree walked.
import type { CommandNode, FlagSpec } from "./tree.js";

/** The flags accepted at a command: its own, then the global ones. */
export function acceptedFlags(root: CommandNode, node: CommandNode): FlagSpec[] {
  return node === root ? root.flags : [...node.flags, ...globalFlagsFor(root, node)];
}

/** The root's flags that every command accepts (-V/--version is the root's alone). */
export function globalFlags(root: CommandNode): FlagSpec[] {
  return root.flags.filter((flag) => flag.long !== "--version");
}

/** "--output" and "-o", long first. */
export function flagNames(flag: FlagSpec): string[] {
  return [flag.long, flag.short].filter((name): name is string => name !== null);
}

/** The root and every command with subcommands, depth first. */
export function parents(root: CommandNode): CommandNode[] {
  return root.children.length ? [root, ...root.children.flatMap(parents)] : [];
}

/** Every command without subcommands (the ones that run), depth first. */
export function leaves(root: CommandNode): CommandNode[] {
  return root.children.flatMap((child) => (child.children.length ? leaves(child) : [child]));
}

/** The global flags at a command, less those it defines itself (so its own win). */
export function globalFlagsFor(root: CommandNode, node: CommandNode): FlagSpec[] {
  const own = new Set(node.flags.flatMap(flagNames));
  return globalFlags(root).filter((flag) => !flagNames(flag).some((name) => own.has(name)));
}

/** Every command but the root: the ones whose own flags are not global. */
export function commandsBelow(root: CommandNode): CommandNode[] {
  return [...parents(root), ...leaves(root)].filter((node) => node !== root);
}
