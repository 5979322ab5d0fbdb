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
//
// A copy of such a file under the name an editor or a backup tool gives it holds the same
// secrets, and counts too (EDITOR_COPIES): the name's last part with a backup suffix (`.env~`,
// `key.pem.bak`), and that in an editor's swap, undo, auto-save or lock file (`.env.swp`,
// `#.env#`, `.#.env`). A hard link under any name is caught by the walk (walk.ts).

/**
 * Environment files; package-registry, git (and GitHub CLI), container and cloud credentials;
 * database password files; private keys, keystores and certificates with their keys, and
 * .ssh directories; Terraform variables and state (which hold secrets in plain text);
 * Kubernetes configs.
 */
export const CREDENTIAL_FILES = [
  // Environment files: .env, .env.production, .env-local, .envrc, prod.env (not .envoy.yaml);
  // Cloudflare's wrangler reads .dev.vars.
  ".env",
  ".env.*",
  ".env-*",
  ".env_*",
  ".envrc",
  "*.env",
  ".secrets.*",
  ".dev.vars",
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
  ".config/gh/hosts.yml",
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
  ".config/gcloud/credentials.db",
  ".config/gcloud/access_tokens.db",
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
  // Anything in an .ssh directory: keys under any name, and what names the hosts they open.
  ".ssh/*",
  // Terraform: variables and state hold secret values in plain text.
  "*.tfvars",
  "*.tfvars.json",
  "*.tfstate",
  "*.tfstate.backup",
  ".terraformrc",
  "terraform.rc",
] as const;

/**
 * What editors and backup tools make of a file's name (the last part of a path), for a copy
 * that holds the file's text: one backup suffix (`NAME~` of emacs, vim and nano, `.bak`,
 * `.backup`, `.orig` of merge tools and patch, `.old`, `.save` of nano, `.tmp` of a write
 * cut short), and around that, at most one of: vim's swap files (`.NAME.swp`, then `.swo`,
 * `.swn`, ... down to `.swa`) and undo files (`.NAME.un~`), kate's swap file
 * (`.NAME.kate-swp`), where the dot before the name is there only when the name has none
 * (either form is taken); emacs' auto-save file (`#NAME#`) and lock (`.#NAME`).
 */
export const EDITOR_COPIES = {
  backupSuffixes: ["~", ".bak", ".backup", ".orig", ".old", ".save", ".tmp"],
  swapSuffixes: [..."abcdefghijklmnop"].map((letter) => `.sw${letter}`).concat([".un~", ".kate-swp"]),
  wrappers: [
    ["#", "#"],
    [".#", ""],
  ],
} as const;

const BACKUP_SUFFIXES: ReadonlySet<string> = new Set(EDITOR_COPIES.backupSuffixes);
const SWAP_SUFFIXES: ReadonlySet<string> = new Set(EDITOR_COPIES.swapSuffixes);

/**
 * Whether `test` holds for `name` (lowercased) or for a name it may be a copy of
 * (EDITOR_COPIES): without a swap suffix or a wrapper, and each of those without a backup
 * suffix. Each suffix is looked up, not compared one by one: this runs for every path packed.
 */
function nameOrOriginal(name: string, test: (candidate: string) => boolean): boolean {
  if (withOrWithoutBackup(name, test)) return true;
  const unswapped = withoutSuffix(name, SWAP_SUFFIXES);
  if (unswapped !== null) {
    if (withOrWithoutBackup(unswapped, test)) return true;
    // The dot vim and kate put before a name that has none.
    if (unswapped.length > 1 && unswapped[0] === "." && withOrWithoutBackup(unswapped.slice(1), test))
      return true;
  }
  for (const [before, after] of EDITOR_COPIES.wrappers) {
    if (name.length > before.length + after.length && name.startsWith(before) && name.endsWith(after)) {
      if (withOrWithoutBackup(name.slice(before.length, name.length - after.length), test)) return true;
    }
  }
  return false;
}

function withOrWithoutBackup(name: string, test: (candidate: string) => boolean): boolean {
  if (test(name)) return true;
  const original = withoutSuffix(name, BACKUP_SUFFIXES);
  return original !== null && test(original);
}

/**
 * `name` without the one of `suffixes` it ends with, or null: each suffix is `~` or starts
 * with its only dot (`.bak`, `.un~`), so only the part from the last dot, and a final `~`, can
 * be one. What is left is never empty.
 */
function withoutSuffix(name: string, suffixes: ReadonlySet<string>): string | null {
  const dot = name.lastIndexOf(".");
  if (dot > 0 && suffixes.has(name.slice(dot))) return name.slice(0, dot);
  if (name.length > 1 && name.endsWith("~") && suffixes.has("~")) return name.slice(0, -1);
  return null;
}

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
  /** Patterns with a slash and no `*`, by their last part: the parts before it. */
  pathsByName: ReadonlyMap<string, readonly (readonly string[])[]>;
  /** Patterns with a slash and a `*` (in their last part): the parts before the last, and the last. */
  starredPaths: readonly { parents: readonly string[]; last: NamePatterns }[];
}

let matchers: Matchers | undefined;

/** Whether the file at `path` (relative, POSIX) is one CREDENTIAL_FILES names, or is below one. */
export function isCredentialFile(path: string): boolean {
  matchers ??= compile(CREDENTIAL_FILES);
  const parts = foldCase(path).split("/");
  const { names, pathsByName, starredPaths } = matchers;
  // The path itself, then each directory above it; each name, then what it may be a copy of.
  for (let end = parts.length; end > 0; end--) {
    const below = (parents: readonly string[]) =>
      end > parents.length && parents.every((parent, i) => parts[end - 1 - parents.length + i] === parent);
    const matches = (name: string) =>
      matchesName(names, name) ||
      (pathsByName.get(name)?.some(below) ?? false) ||
      starredPaths.some(({ parents, last }) => matchesName(last, name) && below(parents));
    if (nameOrOriginal(parts[end - 1]!, matches)) return true;
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
  const pathsByName = new Map<string, string[][]>();
  for (const parts of paths.filter((parts) => !parts.at(-1)!.includes("*"))) {
    const last = parts.at(-1)!;
    pathsByName.set(last, [...(pathsByName.get(last) ?? []), parts.slice(0, -1)]);
  }
  return {
    names: namePatterns(lower.filter((pattern) => !pattern.includes("/"))),
    pathsByName,
    starredPaths: paths
      .filter((parts) => parts.at(-1)!.includes("*"))
      .map((parts) => ({ parents: parts.slice(0, -1), last: namePatterns([parts.at(-1)!]) })),
  };
}
