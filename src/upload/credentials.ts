// Files that usually hold credentials, left out of a tarball unless `--include-credentials`.
//
// Patterns in the gitignore manner, matched at any depth and in any case (`.ENV`, `ID_RSA`,
// `server.PEM`: a file system that ignores case, or a person, may write them so), files only:
// `*` is any run of characters but `/`; a pattern without a slash is matched against a name,
// one with a slash against the last parts of a path (`.aws/credentials` is any
// `.aws/credentials`); as in gitignore, a file below a directory that matches is matched too
// (everything in a `.env/`). Each pattern has at most one `*`, in its last part, so that a name
// is matched by a set look-up or by comparing its start and end: a regular expression of them
// all took about 1 ms to compile and tier up (most of what the check of a 50-file project
// cost), a general gitignore matcher several.

/**
 * Environment files; package-registry, git, container and cloud credentials; database
 * password files; private keys, keystores and certificates with their keys; Terraform
 * variables and state (which hold secrets in plain text); Kubernetes configs.
 */
export const CREDENTIAL_FILES = [
  // Environment files: .env, .env.production, .env-local, .envrc, prod.env (not .envoy.yaml).
  ".env",
  ".env.*",
  ".env-*",
  ".env_*",
  ".envrc",
  "*.env",
  ".secrets.*",
  // Package registries, git and other tools' credentials.
  ".npmrc",
  ".pypirc",
  ".netrc",
  "_netrc",
  ".git-credentials",
  ".gem/credentials",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".m2/settings-security.xml",
  ".vault-token",
  ".htpasswd",
  ".streamlit/secrets.toml",
  "huggingface/token",
  // Containers and clusters.
  ".dockercfg",
  ".docker/config.json",
  ".kube/config",
  "kubeconfig",
  "*.kubeconfig",
  // Clouds: AWS, Google (service-account and OAuth client keys), Azure, s3cmd, boto, rclone.
  ".aws/credentials",
  "credentials.json",
  "client_secret*.json",
  "application_default_credentials.json",
  "service-account*.json",
  ".azure/accessTokens.json",
  ".azure/msal_token_cache.*",
  ".s3cfg",
  ".boto",
  "rclone.conf",
  ".passwd-s3fs",
  // Databases.
  ".pgpass",
  ".my.cnf",
  ".mylogin.cnf",
  // Keys and certificates with their keys.
  "*.pem",
  "*.key",
  "*.p8",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*.ppk",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  // Terraform: variables and state hold secret values in plain text.
  "*.tfvars",
  "*.tfvars.json",
  "*.tfstate",
  "*.tfstate.backup",
  ".terraformrc",
  "terraform.rc",
] as const;

/**
 * Patterns of one part, lowercased: those without a `*`; those that are `*` and an extension
 * (`*.pem`, `*.tfvars.json`), by the extension; the others split at their `*`.
 */
interface NamePatterns {
  exact: ReadonlySet<string>;
  extensions: ReadonlySet<string>;
  starred: readonly { head: string; tail: string }[];
}

interface Matchers {
  /** Patterns without a slash, for each part of a path. */
  names: NamePatterns;
  /** Patterns with a slash: the parts before the last, and the last, where a `*` may be. */
  paths: readonly { parents: string[]; last: NamePatterns }[];
}

let matchers: Matchers | undefined;

/** Whether the file at `path` (relative, POSIX) is one CREDENTIAL_FILES names, or is below one. */
export function isCredentialFile(path: string): boolean {
  matchers ??= compile(CREDENTIAL_FILES);
  const parts = foldCase(path).split("/");
  // The path itself, then each directory above it.
  for (let end = parts.length; end > 0; end--) {
    const name = parts[end - 1]!;
    if (matchesName(matchers.names, name)) return true;
    for (const { parents, last } of matchers.paths) {
      if (end <= parents.length || !matchesName(last, name)) continue;
      let i = 0;
      while (i < parents.length && parts[end - 1 - parents.length + i] === parents[i]) i++;
      if (i === parents.length) return true;
    }
  }
  return false;
}

function matchesName({ exact, extensions, starred }: NamePatterns, name: string): boolean {
  if (exact.has(name)) return true;
  for (let dot = name.indexOf("."); dot !== -1; dot = name.indexOf(".", dot + 1)) {
    if (extensions.has(name.slice(dot))) return true;
  }
  for (const { head, tail } of starred) {
    if (name.length >= head.length + tail.length && name.startsWith(head) && name.endsWith(tail)) return true;
  }
  return false;
}

/**
 * ASCII letters in lower case, and nothing else: the patterns are ASCII, and a character that
 * toLowerCase would turn into an ASCII letter (the Kelvin sign into k) is not that letter.
 */
function foldCase(text: string): string {
  return /^[\x00-\x7f]*$/.test(text)
    ? text.toLowerCase()
    : text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

function compile(patterns: readonly string[]): Matchers {
  const namePatterns = (names: string[]): NamePatterns => {
    const split = names
      .filter((name) => name.includes("*"))
      .map((name) => {
        const [head = "", tail = "", ...more] = name.split("*");
        if (more.length > 0) throw new Error(`credentials: more than one * in ${name}`);
        return { head, tail };
      });
    const isExtension = ({ head, tail }: { head: string; tail: string }) =>
      head === "" && tail.startsWith(".");
    return {
      exact: new Set(names.filter((name) => !name.includes("*"))),
      extensions: new Set(split.filter(isExtension).map(({ tail }) => tail)),
      starred: split.filter((pattern) => !isExtension(pattern)),
    };
  };
  const lower = patterns.map((pattern) => pattern.toLowerCase());
  const paths = lower.filter((pattern) => pattern.includes("/")).map((pattern) => pattern.split("/"));
  if (paths.some((parts) => parts.slice(0, -1).some((part) => part.includes("*"))))
    throw new Error("credentials: a * only in a pattern's last part");
  return {
    names: namePatterns(lower.filter((pattern) => !pattern.includes("/"))),
    paths: paths.map((parts) => ({ parents: parts.slice(0, -1), last: namePatterns([parts.at(-1)!]) })),
  };
}
