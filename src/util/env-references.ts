// `${env:NAME}` in a string: the one statement of the syntax, shared by deployment files and
// config files. `$${` stands for a literal `${`; other `${...}` forms (a shell's `${HOME}` in
// an install_command) are left as they are. A reference that starts `${env:` but is not
// `${env:NAME}` is an error, never sent on as text.

const REFERENCE = /\$\$\{|\$\{env:([^}]*)(\})?/g;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How much of a malformed reference a message quotes: the rest of the string may be a secret. */
const SHOWN = 40;

type Interpolated =
  | { ok: true; value: string; variables: string[] }
  | { ok: false; unset: string }
  | { ok: false; malformed: string };

export function interpolateEnv(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): Interpolated {
  const variables: string[] = [];
  let problem: { unset: string } | { malformed: string } | undefined;
  const value = text.replace(REFERENCE, (match, name: string | undefined, closed: string | undefined) => {
    if (match === "$${") return "${";
    if (!closed || !VARIABLE.test(name ?? "")) {
      problem ??= { malformed: match.length > SHOWN ? `${match.slice(0, SHOWN)}...` : match };
      return "";
    }
    const found = env[name!];
    if (found === undefined) problem ??= { unset: name! };
    variables.push(name!);
    return found ?? "";
  });
  return problem ? { ok: false, ...problem } : { ok: true, value, variables };
}

/** The sentence that explains a malformed reference, after "where: ". */
export function malformedReferenceMessage(reference: string): string {
  return `'${reference}' is not a valid reference: write \${env:NAME} (NAME of letters, digits and _, not starting with a digit), or $\${ for a literal \${`;
}

/** The variables a string refers to, in order (malformed references are not counted). */
export function envReferences(text: string): string[] {
  return [...text.matchAll(REFERENCE)].flatMap(([match, name, closed]) =>
    match !== "$${" && closed && VARIABLE.test(name ?? "") ? [name!] : [],
  );
}

/** True when the string is (partly) written out rather than only `${env:NAME}` references. */
export function isLiteral(text: string): boolean {
  return text.replace(REFERENCE, (match) => (match === "$${" ? "${" : "")).trim() !== "";
}
