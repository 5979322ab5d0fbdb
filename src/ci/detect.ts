// Which CI system cpctl is running in, for what it adds there: GitHub Actions step outputs,
// summary, annotations and log groups (GITHUB_ACTIONS=true; CPCTL_GITHUB=0 turns them off),
// GitLab's collapsible log sections (GITLAB_CI set). No imports: main.ts asks on every error.
type Env = Readonly<Record<string, string | undefined>>;

export function onGitHubActions(env: Env): boolean {
  return env.GITHUB_ACTIONS === "true" && env.CPCTL_GITHUB !== "0";
}

export function onGitLab(env: Env): boolean {
  return Boolean(env.GITLAB_CI);
}

/**
 * A workflow command's data, escaped as the runner reads it (actions/toolkit's escapeData),
 * so that a message cannot end the command early or start another.
 */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value (title=...): ':' and ',' end a property, so they are escaped too. */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * `::error title=...::message` for GitHub Actions, on stderr: the runner reads workflow
 * commands from both streams, and stdout carries only results (a JSON consumer must not
 * find an annotation in it).
 */
export function errorAnnotation(title: string, message: string): string {
  return `::error title=${escapeProperty(title)}::${escapeData(message)}\n`;
}
