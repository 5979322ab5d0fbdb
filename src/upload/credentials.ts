// Files that usually hold credentials, left out of a tarball unless `--include-credentials`.
//
// Patterns in the gitignore manner, matched at any depth and in any case (`.ENV`, `ID_RSA`,
// `server.PEM`: a file system that ignores case, or a person, may write them so), files only:
// `*` is any run of characters but `/`; a pattern without a slash is matched against a name,
// one with a slash against the last parts of a path (`.aws/credentials` is any
// `.aws/credentials`); as in gitignore, a file below a directory that matches is matched too
// (everything in a `.env/`). They are compiled into two regular expressions on first use,
// which costs a fraction of a millisecond, where a general gitignore matcher took several.

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

let matchers: { name: RegExp; tail: RegExp } | undefined;

/** Whether the file at `path` (relative, POSIX) is one CREDENTIAL_FILES names, or is below one. */
export function isCredentialFile(path: string): boolean {
  matchers ??= compile(CREDENTIAL_FILES);
  // The path itself, then each directory above it.
  for (let end = path.length; end > 0; end = path.lastIndexOf("/", end - 1)) {
    const prefix = path.slice(0, end);
    const name = prefix.slice(prefix.lastIndexOf("/") + 1);
    if (matchers.name.test(name) || matchers.tail.test(prefix)) return true;
  }
  return false;
}

function compile(patterns: readonly string[]): { name: RegExp; tail: RegExp } {
  const glob = (pattern: string) =>
    pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^/]*");
  const named = patterns.filter((pattern) => !pattern.includes("/")).map(glob);
  const tails = patterns.filter((pattern) => pattern.includes("/")).map(glob);
  return {
    name: new RegExp(`^(?:${named.join("|")})$`, "i"),
    tail: new RegExp(`(?:^|/)(?:${tails.join("|")})$`, "i"),
  };
}
