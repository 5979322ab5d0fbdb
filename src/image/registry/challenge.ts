// `WWW-Authenticate` challenges (RFC 9110 11.6.1), as registries send them:
//   Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:x:pull"
//   Basic realm="Registry Realm"
// Several may come in one header, separated by commas like their parameters.

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** The challenges of a header value, scheme in lower case; [] for none or garbage. */
export function parseChallenges(header: string | undefined): Challenge[] {
  if (!header) return [];
  const challenges: Challenge[] = [];
  const token = /\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)/y;
  const param = /\s*,?\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/y;
  let at = 0;
  while (at < header.length) {
    token.lastIndex = at;
    const scheme = token.exec(header);
    if (!scheme) break;
    at = token.lastIndex;
    const challenge: Challenge = { scheme: scheme[1]!.toLowerCase(), params: {} };
    for (;;) {
      param.lastIndex = at;
      const found = param.exec(header);
      if (!found) break;
      // A bare word after a comma is the next challenge's scheme, not a parameter.
      challenge.params[found[1]!.toLowerCase()] =
        found[2] !== undefined ? found[2].replace(/\\(.)/g, "$1") : found[3]!;
      at = param.lastIndex;
    }
    challenges.push(challenge);
    const comma = /\s*,\s*/y;
    comma.lastIndex = at;
    if (comma.exec(header)) at = comma.lastIndex;
    else if (at < header.length && !/\s/.test(header[at]!)) break;
  }
  return challenges;
}
