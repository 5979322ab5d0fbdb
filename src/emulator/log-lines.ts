// The words of the emulator's logs: what a build and a running agent server print, stage by
// stage, made from what the revision was built from (its repository and commit, its tarball's
// files, its install and build commands, its image). Only text here; when each line appears
// is logs.ts's job. Everything is a function of stored facts, so the same revision always
// reads the same.
import { createHash } from "node:crypto";
import type { LogLevel, RevisionStatus } from "../model/enums.js";
import { stableUuid } from "./ids.js";
import type { BuildCommands, StoredDeployment, StoredRevision } from "./state.js";
import type { TarballSummary } from "./tarball-summary.js";

export interface Line {
  level: LogLevel;
  message: string;
}

export interface LineContext {
  deployment: Pick<StoredDeployment, "id" | "name" | "source_config">;
  revision: StoredRevision;
  /** What the revision's tarball holds (internal_source build logs); null: none or not read. */
  tarball: TarballSummary | null;
}

const info = (message: string): Line => ({ level: "INFO", message });
const debug = (message: string): Line => ({ level: "DEBUG", message });
const warning = (message: string): Line => ({ level: "WARNING", message });

/** The branch a gitrepo revision without repo_ref builds (as the push control assumes). */
const DEFAULT_REF = "main";
/** Where the agent server listens in its container. */
const SERVER_PORT = 8000;

const short = (id: string) => id.slice(0, 8);

// Each stage's lines take `failing`: true when the revision fails in that stage. Its log then
// stops at the step that failed (the error itself is logs.ts's to add), so that no line after
// it says that step went well.

/** The image a revision runs: its image_uri, or for a built source the image its build pushes. */
export function imageOf({ deployment, revision }: LineContext): string {
  const uri = revision.source_revision_config.image_uri;
  if (uri && !revision.stages.includes("BUILDING")) return uri;
  return `registry.emulator.invalid/deployments/${deployment.id}:${short(revision.id)}`;
}

// --- build log -----------------------------------------------------------------------------

/** AWAITING_BUILD: getting the source. */
export function fetchLines(context: LineContext, failing = false): Line[] {
  const { revision } = context;
  const lines = [info(`Build of revision ${revision.id} of ${context.deployment.name} queued`)];
  if (revision.source === "gitrepo") {
    const config = revision.source_revision_config;
    const url = String(context.deployment.source_config.repo_url ?? "(no repository)");
    const ref = config.repo_ref ?? DEFAULT_REF;
    const sha = config.repo_commit_sha ?? "0".repeat(40);
    lines.push(info(`Fetching ${url} at ${ref}`), debug(`git fetch --depth 1 origin ${sha}`));
    if (!failing) lines.push(info(`Checked out ${ref} at commit ${sha}`));
    return lines;
  }
  const path = revision.source_revision_config.source_tarball_path;
  if (!path) {
    lines.push(
      warning("No source tarball (source_tarball_path is null): building an empty source directory"),
    );
    return lines;
  }
  const digest = revision.source_tarball_sha256 ? `, sha256 ${revision.source_tarball_sha256}` : "";
  lines.push(info(`Downloading source tarball ${path}${digest}`));
  const tarball = context.tarball;
  if (failing) return lines;
  if (!tarball) {
    lines.push(warning(`Source tarball ${path} is not available to list`));
    return lines;
  }
  const count = tarball.complete ? `${tarball.fileCount}` : `at least ${tarball.fileCount}`;
  lines.push(
    info(
      `Unpacking source tarball: ${count} ${plural(tarball.fileCount, "file")}, ${tarball.unpackedBytes} bytes`,
    ),
  );
  for (const file of tarball.files) lines.push(info(`  ${file.path} (${file.size} bytes)`));
  const more = tarball.fileCount - tarball.files.length;
  if (more > 0)
    lines.push(info(`  ... and ${more}${tarball.complete ? "" : " or more"} other ${plural(more, "file")}`));
  if (tarball.problem) lines.push(warning(`Could not read the whole tarball: ${tarball.problem}`));
  return lines;
}

/** BUILDING: dependencies, the build command, the image. */
export function buildLines(context: LineContext, failing = false): Line[] {
  const { revision } = context;
  const commands = buildCommandsOf(context);
  const agentConfig = revision.source_revision_config.agent_config_path ?? "agent.json";
  const lines: Line[] = [];
  // Only a tarball listed whole can be known to lack it.
  const tarball = revision.source === "internal_source" ? context.tarball : null;
  if (tarball?.complete && tarball.files.length === tarball.fileCount) {
    if (!tarball.files.some((f) => f.path === agentConfig)) {
      lines.push(warning(`Agent config ${agentConfig} is not in the source tarball`));
    }
  }
  lines.push(info(`Reading agent config ${agentConfig}`));
  // The step that fails is the last one there is, as defaultFailureMessage says.
  const install = installStep(context, commands.install_command);
  const image = imageOf(context);
  if (install) {
    lines.push(info(install.announce), info(`Running: ${install.command}`));
    if (failing && !commands.build_command) return lines;
    lines.push(info(install.outcome));
  } else {
    lines.push(
      info("No install_command and no package-manager files found: skipping dependency installation"),
    );
  }
  if (commands.build_command) {
    lines.push(info(`Running build command: ${commands.build_command}`));
    if (failing) return lines;
    lines.push(info("Build command finished (exit code 0)"));
  }
  lines.push(info(`Building image ${image}`));
  if (failing) return lines;
  lines.push(
    info(`Pushing image ${image}`),
    info(`Pushed ${image} (digest sha256:${digestOf(revision.id)})`),
  );
  return lines;
}

/** When the build is over: at the start of AWAITING_DEPLOY. */
export function buildSucceededLine(seconds: number): Line {
  return info(`Build succeeded in ${seconds.toFixed(1)} s`);
}

// --- deploy (runtime) log ------------------------------------------------------------------

/** AWAITING_DEPLOY: the image is fetched. */
export function pullLines(context: LineContext, failing = false): Line[] {
  const image = imageOf(context);
  const lines = [
    info(`Deploying revision ${context.revision.id} of ${context.deployment.name}`),
    info(`Pulling image ${image}`),
  ];
  if (!failing) lines.push(info(`Pulled image ${image}`));
  return lines;
}

/** DEPLOYING: the container starts and is checked. */
export function startLines(context: LineContext): Line[] {
  const { revision } = context;
  const lines = [info(`Starting container ${containerOf(context)}`), info("Starting agent server")];
  const agentConfig = revision.source_revision_config.agent_config_path;
  if (agentConfig) lines.push(info(`Loaded agent config ${agentConfig}`));
  lines.push(
    info(`Server listening on 0.0.0.0:${SERVER_PORT}`),
    info("Waiting for the health check (GET /ok)"),
  );
  return lines;
}

/** The moment the revision is DEPLOYED. */
export function servingLine(context: LineContext): Line {
  return info(`Health check passed: revision ${context.revision.id} is serving traffic`);
}

/** When a newer revision is DEPLOYED in its place. */
export function shutdownLines(context: LineContext, replacedBy: string): Line[] {
  return [
    info(`Revision ${replacedBy} is now serving: stopping container ${containerOf(context)} (SIGTERM)`),
    info("Server stopped"),
  ];
}

/** A newer revision was created while this one was being built or deployed. */
export function interruptedLine(newer: string | null, during: "build" | "deploy"): Line {
  const by = newer ? `revision ${newer}` : "a newer revision";
  return warning(
    `${during === "build" ? "Build" : "Deploy"} interrupted: ${by} of the deployment was started`,
  );
}

/** A request to a serving revision is logged every this many milliseconds of emulator time. */
export const REQUEST_PERIOD_MS = 5000;

/**
 * What a serving agent server logs, one line every REQUEST_PERIOD_MS, going round this cycle.
 * A line's text depends only on its place in the cycle, which is what lets logs.ts find
 * the lines matching a filter among millions without reading them.
 */
export function requestCycle(context: LineContext): Line[] {
  const thread = (n: number) => stableUuid(context.revision.id, "thread", String(n));
  return [
    info("GET /ok 200 1ms"),
    info("POST /threads 200 9ms"),
    info(`POST /threads/${thread(1)}/runs/stream 200 1873ms`),
    info("GET /ok 200 1ms"),
    debug(`Checkpoint written for thread ${thread(1)} (step 3)`),
    info(`GET /threads/${thread(1)}/state 200 6ms`),
    info("GET /ok 200 2ms"),
    warning(`POST /threads/${thread(2)}/runs/wait 200 31204ms: slow request (over 30 s)`),
    info("POST /assistants/search 200 12ms"),
    info("GET /ok 200 1ms"),
  ];
}

// --- failures ------------------------------------------------------------------------------

/** The error a revision that fails at the end of `stage` ends its log with, unless told another. */
export function defaultFailureMessage(context: LineContext, stage: RevisionStatus): string {
  const { revision } = context;
  switch (stage) {
    case "CREATING":
      return `Revision ${revision.id} could not be created: resource quota exceeded for the tenant (deployments: limit reached)`;
    case "QUEUED":
      return `Revision ${revision.id} could not be scheduled: no capacity became available within 600 s`;
    case "AWAITING_BUILD":
      if (revision.source === "gitrepo") {
        const url = String(context.deployment.source_config.repo_url ?? "the repository");
        const ref = revision.source_revision_config.repo_ref ?? DEFAULT_REF;
        return `fatal: could not read from remote repository ${url}: couldn't find remote ref ${ref}`;
      }
      return `Could not unpack the source tarball ${revision.source_revision_config.source_tarball_path ?? "(none)"}: unexpected end of file`;
    case "BUILDING": {
      const commands = buildCommandsOf(context);
      if (commands.build_command) {
        return `Build failed: '${commands.build_command}' exited with code 2: src/agent.ts(14,7): error TS2304: Cannot find name 'StateGraph'.`;
      }
      const install = installStep(context, commands.install_command);
      return install
        ? `Build failed: '${install.command}' exited with code 1: ${install.failure}`
        : `Build failed: the image build exited with code 1: agent config ${revision.source_revision_config.agent_config_path ?? "agent.json"} names a graph that does not exist`;
    }
    case "AWAITING_DEPLOY":
      return `Deploy failed: could not pull image ${imageOf(context)}: manifest unknown`;
    default:
      return `Deploy failed: the server did not become healthy: GET /ok did not answer 200 within 300 s (container ${containerOf(context)} exited with code 1)`;
  }
}

// --- helpers -------------------------------------------------------------------------------

/** The commands a built revision was created with (only those have a build log). */
function buildCommandsOf({ revision }: LineContext): BuildCommands {
  return revision.build_commands ?? { install_command: null, build_command: null };
}

interface InstallStep {
  announce: string;
  command: string;
  outcome: string;
  failure: string;
}

/** Package-manager files, most specific first, and what the service runs for each. */
const DETECTED: [file: string, command: string, outcome: string, failure: string][] = [
  [
    "package-lock.json",
    "npm ci",
    "added 214 packages in 7s",
    "npm ERR! code ERESOLVE: unable to resolve dependency tree",
  ],
  [
    "yarn.lock",
    "yarn install --frozen-lockfile",
    "Done in 8.12s.",
    "error Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`.",
  ],
  [
    "pnpm-lock.yaml",
    "pnpm install --frozen-lockfile",
    "Done in 5.3s",
    'ERR_PNPM_OUTDATED_LOCKFILE Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date',
  ],
  [
    "bun.lock",
    "bun install --frozen-lockfile",
    "214 packages installed [2.10s]",
    "error: lockfile had changes, but lockfile is frozen",
  ],
  [
    "package.json",
    "npm install",
    "added 214 packages in 9s",
    "npm ERR! code ETARGET: No matching version found",
  ],
  [
    "uv.lock",
    "uv sync --frozen",
    "Installed 58 packages in 1.21s",
    "error: The lockfile at `uv.lock` needs to be updated, but `--frozen` was provided",
  ],
  [
    "requirements.txt",
    "pip install -r requirements.txt",
    "Successfully installed 58 packages",
    "ERROR: Could not find a version that satisfies the requirement langgraph==9.9.9",
  ],
  [
    "pyproject.toml",
    "pip install .",
    "Successfully installed 58 packages",
    "ERROR: Could not build wheels for agent, which is required to install pyproject.toml-based projects",
  ],
];

function installStep(context: LineContext, installCommand: string | null): InstallStep | null {
  if (installCommand) {
    return {
      announce: `Installing dependencies with install_command: ${installCommand}`,
      command: installCommand,
      outcome: "Dependencies installed",
      failure: "dependency installation failed",
    };
  }
  // A repository is not at hand: it is taken to be a JavaScript project with a lockfile (the
  // case install_command exists for). A tarball's own top-level files decide.
  const present =
    context.revision.source === "internal_source" ? (context.tarball?.topLevel ?? []) : ["package-lock.json"];
  const found = DETECTED.find(([file]) => present.includes(file));
  if (!found) return null;
  const [file, command, outcome, failure] = found;
  return { announce: `No install_command set: detected ${file}`, command, outcome, failure };
}

function containerOf({ deployment, revision }: LineContext): string {
  const slug =
    deployment.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "agent";
  return `${slug}-${short(revision.id)}`;
}

/** The pushed image's digest: derived from the revision, so the same on every read. */
function digestOf(revisionId: string): string {
  return createHash("sha256").update(`${revisionId}/image`).digest("hex");
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
