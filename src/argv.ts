// Reading the command line before commander does: which command it names (to load only that
// command's module, and for messages and CI reports that name it).

/** Global options that take a value: needed to find the command words in argv. */
export const VALUE_OPTIONS = new Set([
  "--profile",
  "--base-url",
  "--tenant-id",
  "--api-key-file",
  "-o",
  "--output",
  "--request-timeout",
]);

/** The words that name the command: argv's leading non-option tokens, global option values skipped. */
export function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    if (token.startsWith("-")) {
      if (VALUE_OPTIONS.has(token)) i++;
      continue;
    }
    words.push(token);
  }
  return words;
}
