// Last line of defence: any credential or secret value the CLI has handled is replaced
// wherever it would appear in a message, even one quoted back by a server.

export function redactKnown(text: string, secrets: ReadonlySet<string>): string {
  let result = text;
  for (const secret of secrets) {
    // Very short values would blank out ordinary words; they are masked at their source instead.
    if (secret.length >= 4) result = result.split(secret).join("****");
  }
  return result;
}
