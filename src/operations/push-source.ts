// `deploy push [DIR]`'s payload: a project directory, packed as `deploy upload` packs it and
// uploaded to an internal_source deployment, which builds it. Everything local is checked here
// (the directory, the agent configuration, the tarball and its size)
// before the push sends anything. The active revision runs this source already when it was
// built from the same tarball: the server reports its sha256, and cpctl's tarballs are
// reproducible.
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ApiClient } from "../api/client.js";
import { getRevision } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { UsageError } from "../errors.js";
import type { SecretFlags } from "../manifest/build.js";
import type { Change } from "../model/changes.js";
import { DEFAULT_MAX_UPLOAD_BYTES } from "../model/enums.js";
import type { DeploymentT } from "../model/responses.js";
import { findAgentConfig } from "../project/agent-config.js";
import type { ProjectDirectory } from "../project/directory.js";
import { detectTrackedPackages } from "../project/tracked-packages.js";
import { formatBytes } from "../upload/size.js";
import { describeSource, leftOutMessages, prepareSource } from "../upload/source.js";
import type { Payload, PushReport } from "./push-payload.js";
import { packedFiles, uploadSource } from "./upload.js";

/** The flags of a directory push (push-request.ts refuses them with an image). */
export type SourceFlags = {
  agentConfigPath?: string;
  /** Default: DEFAULT_MAX_UPLOAD_BYTES. */
  maxSize?: number;
  includeCredentials?: boolean;
};

export async function sourcePayload(
  ctx: Ctx,
  directory: ProjectDirectory,
  input: SourceFlags & Pick<SecretFlags, "secretsFile">,
  report: PushReport,
): Promise<Payload> {
  const config = await findAgentConfig(directory.absolute, directory.shown, input.agentConfigPath);
  const source = await prepareSource(ctx.cwd, directory.absolute, input.maxSize ?? DEFAULT_MAX_UPLOAD_BYTES, {
    includeCredentials: Boolean(input.includeCredentials),
    signal: ctx.signal,
  });
  const { tarball } = source;
  const files = packedFiles(source) ?? [];
  if (!files.includes(config.path)) {
    tarball.dispose();
    throw new UsageError(
      `${config.path}, the agent configuration, is left out of the tarball of ${directory.shown}: the build would not find it; nothing was sent`,
    ).withHint("A .gitignore or .dockerignore rule leaves it out: take it back with a !pattern line.");
  }
  await report.step("packed", describeSource({ ...source, display: directory.shown }), {
    files: files.length,
    bytes: tarball.bytes,
    sha256: tarball.sha256,
    agent_config_path: config.path,
  });
  const said = leftOutMessages(source, {
    file: secretsFileIn(ctx.cwd, directory.absolute, input.secretsFile),
  });
  for (const note of said.notes) ctx.log.info(note);
  for (const warning of said.warnings) ctx.log.warn(warning);
  const trackedPackages = await detectTrackedPackages(directory.absolute, config);

  return {
    source: "internal_source",
    shown: directory.shown,
    shipping: "the upload",
    trackedPackages,
    createRevisionConfig: () => ({ agent_config_path: config.path }),
    // agent_config_path is sent only when it changes: in a PATCH a value starts a revision.
    settings: (current) =>
      current.source_revision_config.agent_config_path !== config.path
        ? { agent_config_path: config.path }
        : {},
    pendingChange: (current) => tarballChange(current, directory.shown, tarball.bytes, tarball.sha256),
    runningAlready: async (api, deployment) => {
      const active = await activeRevisionSha(api, deployment);
      if (!active || active.sha256 !== tarball.sha256) return null;
      return { id: active.id, status: active.status, what: `this source (sha256 ${tarball.sha256})` };
    },
    ship: async (shipCtx, api, deployment, shipReport) => {
      const objectPath = await uploadSource(shipCtx, api, deployment.id, source);
      await shipReport.step("uploaded", `Uploaded ${formatBytes(tarball.bytes)} to ${objectPath}`, {
        object_path: objectPath,
        bytes: tarball.bytes,
        sha256: tarball.sha256,
      });
      return { source_revision_config: { source_tarball_path: objectPath } };
    },
    result: () => ({ bytes: tarball.bytes, sha256: tarball.sha256 }),
    dryRun: () => {
      const walk = source.walk;
      return {
        fields: {
          agent_config_path: config.path,
          tracked_packages: trackedPackages,
          bytes: tarball.bytes,
          sha256: tarball.sha256,
          files,
          left_out: {
            gitignore: walk?.ignored ?? [],
            dockerignore: walk?.dockerignored ?? [],
            always: walk?.excluded ?? [],
            credentials: walk?.credentials ?? [],
            skipped: (walk?.skipped ?? []).map((skipped) => skipped.path),
          },
        },
        text: files.join("\n"),
      };
    },
    // The tarball waits (in memory, or a temporary file: upload/spool.ts) until the push is over.
    release: () => tarball.dispose(),
  };
}

/** The --secrets-file, as a path relative to the directory pushed when it is one of its files; else null. */
function secretsFileIn(cwd: string, directory: string, secretsFile: string | undefined): string | null {
  if (secretsFile === undefined || secretsFile === "-") return null;
  const inside = relative(directory, resolve(cwd, secretsFile));
  return inside === "" || inside.startsWith("..") || isAbsolute(inside) ? null : inside.split(sep).join("/");
}

async function activeRevisionSha(
  api: ApiClient,
  deployment: DeploymentT,
): Promise<{ id: string; sha256: string | null; status: string } | null> {
  if (!deployment.active_revision_id) return null;
  const revision = await getRevision(api, deployment.id, deployment.active_revision_id);
  const sha256 = (revision as { source_tarball_sha256?: unknown }).source_tarball_sha256;
  return { id: revision.id, sha256: typeof sha256 === "string" ? sha256 : null, status: revision.status };
}

/** The preview's line for the tarball, whose object path the upload has not given yet. */
function tarballChange(current: DeploymentT | null, shown: string, bytes: number, sha256: string): Change {
  const before = current?.source_revision_config.source_tarball_path ?? null;
  return {
    path: "source_revision_config.source_tarball_path",
    kind: before ? "change" : "add",
    current: before,
    desired: `(the upload of ${shown}: ${formatBytes(bytes)}, sha256 ${sha256.slice(0, 12)}…)`,
    immutable: false,
    secret: false,
  };
}
