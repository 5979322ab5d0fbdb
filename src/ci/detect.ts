// Which CI system cpctl is running in, for what it adds there: GitHub Actions step outputs,
// summary, annotations and log groups (GITHUB_ACTIONS=true; CPCTL_GITHUB=0 turns them off;
// workflow-commands.ts writes them), GitLab's collapsible log sections (GITLAB_CI set). No
// imports: main.ts asks on every run.
type Env = Readonly<Record<string, string | undefined>>;

export function onGitHubActions(env: Env): boolean {
  return env.GITHUB_ACTIONS === "true" && env.CPCTL_GITHUB !== "0";
}

export function onGitLab(env: Env): boolean {
  return Boolean(env.GITLAB_CI);
}
