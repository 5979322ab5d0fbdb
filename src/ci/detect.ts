// Which CI system cpctl is running in, for what it adds there: GitHub Actions step outputs,
// summary, annotations and log groups (GITHUB_ACTIONS=true; CPCTL_GITHUB=0 turns them off;
// output/workflow-commands.ts writes them), GitLab's collapsible log sections (GITLAB_CI
// set). Nothing loaded at run time (a type import only): main.ts asks on every run.
import type { Env } from "../io.js";

export function onGitHubActions(env: Env): boolean {
  return env.GITHUB_ACTIONS === "true" && env.CPCTL_GITHUB !== "0";
}

export function onGitLab(env: Env): boolean {
  return Boolean(env.GITLAB_CI);
}
