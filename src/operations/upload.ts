// `deploy upload`: a directory packed (or a tarball taken as it is), uploaded through a
// one-time URL, and with --patch made the deployment's source_tarball_path. The upload
// itself (uploadSource) is shared with `deploy push`.
import type { ApiClient } from "../api/client.js";
import { createUploadUrl, getDeployment, uploadTarball } from "../api/endpoints.js";
import type { Ctx } from "../context.js";
import { NetworkError, UsageError } from "../errors.js";
import type { DeploymentT } from "../model/responses.js";
import { formatBytes } from "../upload/size.js";
import { describeSource, leftOutMessages, type PreparedSource, prepareSource } from "../upload/source.js";
import type { WaitingFlags } from "./after-change.js";
import { resolveDeployment } from "./resolve.js";

/** `deploy upload`'s options: what its flags parse to (the command checks that they match). */
export interface UploadInput extends WaitingFlags {
  maxSize: number;
  includeCredentials?: boolean;
  patch?: boolean;
  dryRun?: boolean;
}

export async function runUpload(ctx: Ctx, ref: string, path: string, input: UploadInput): Promise<void> {
  if (input.wait && !input.patch) {
    throw new UsageError("--wait needs --patch: an upload alone starts no revision");
  }
  // Everything local first: a bad path or an oversized tarball costs no request. Once every
  // file is read and the limit cannot be passed, the deployment is read while the last
  // segments compress (its answer is awaited after packing: what packing says comes first).
  let deployment: Promise<DeploymentT> | undefined;
  const source = await prepareSource(ctx.cwd, path, input.maxSize, {
    includeCredentials: Boolean(input.includeCredentials),
    signal: ctx.signal,
    onFilesRead: () => {
      deployment = resolveDeployment(ctx, ref);
      // Awaited after packing; should packing fail first, its error is the one reported.
      deployment.catch(() => {});
    },
  });
  try {
    await uploadPrepared(ctx, source, input, deployment ?? resolveDeployment(ctx, ref));
  } finally {
    // The tarball waits (in memory, or a temporary file: upload/spool.ts) until here.
    source.tarball.dispose();
  }
}

async function uploadPrepared(
  ctx: Ctx,
  source: PreparedSource,
  input: UploadInput,
  resolving: Promise<DeploymentT>,
): Promise<void> {
  ctx.log.info(describeSource(source));
  for (const warning of leftOutMessages(source).warnings) ctx.log.warn(warning);

  const deployment = await resolving;
  if (deployment.source !== "internal_source") {
    throw new UsageError(
      `deployment ${deployment.name} has source ${deployment.source}: only internal_source deployments are built from an uploaded tarball`,
    );
  }
  warnMissingAgentConfig(ctx, source, deployment);

  const printer = await ctx.printer();
  if (input.dryRun) {
    const files = packedFiles(source);
    await printer.value(
      {
        deployment_id: deployment.id,
        source: source.kind,
        bytes: source.tarball.bytes,
        sha256: source.tarball.sha256,
        files,
      },
      () => (files ?? [source.display]).join("\n"),
    );
    ctx.log.info("dry run: nothing was uploaded");
    return;
  }

  // With --patch the upload starts a revision: confirm before anything reaches the server.
  // Confirming, planning and sending a change load the model's rules and the change machinery:
  // only an upload with --patch pays for them (a plain upload starts about 30 ms sooner).
  if (input.patch) {
    const { guardMutation } = await import("./confirm.js");
    await guardMutation(ctx, `upload ${source.display} and start a revision of ${deployment.name}`);
  }
  const api = await ctx.api();
  ctx.log.info(`uploading ${formatBytes(source.tarball.bytes)} of ${source.display}`);
  const objectPath = await uploadSource(ctx, api, deployment.id, source);
  ctx.log.info(`uploaded ${objectPath} (sha256 ${source.tarball.sha256})`);

  if (!input.patch) {
    if (printer.options.format === "id" || printer.options.format === "table") printer.line(objectPath);
    else
      await printer.value({
        deployment_id: deployment.id,
        object_path: objectPath,
        bytes: source.tarball.bytes,
      });
    return;
  }
  // The upload took time: the patch is planned against the deployment as it is now.
  const [{ planPatch }, { invalidPlan, patchAndFinish }] = await Promise.all([
    import("../model/plan.js"),
    import("./change.js"),
  ]);
  const current = await getDeployment(api, deployment.id);
  const planned = planPatch(current, {
    body: { source_revision_config: { source_tarball_path: objectPath } },
  });
  if (!planned.ok) throw invalidPlan(planned.issues);
  await patchAndFinish(ctx, current, planned.plan, input);
}

/** Asks for a one-time upload URL and PUTs the tarball there; returns the object path. */
export async function uploadSource(
  ctx: Ctx,
  api: ApiClient,
  deploymentId: string,
  source: PreparedSource,
): Promise<string> {
  const { upload_url: uploadUrl, object_path: objectPath } = await createUploadUrl(api, deploymentId);
  // The pre-signed URL grants write access: no message or trace may show it.
  ctx.rememberSecret(uploadUrl);
  try {
    await uploadTarball(api, uploadUrl, source.tarball);
  } catch (error) {
    if (error instanceof NetworkError && error.kind === "timeout") {
      error.withHint(
        "A large upload can need more time than one request is given: raise --request-timeout (e.g. 10m).",
      );
    }
    throw error;
  }
  return objectPath;
}

/** The files a packed directory holds (null for a tarball sent as it is). */
export function packedFiles(source: PreparedSource): string[] | null {
  return source.walk ? source.walk.entries.filter((e) => e.type === "file").map((e) => e.path) : null;
}

/** The build reads agent_config_path from the tarball: say so early when it is not there. */
function warnMissingAgentConfig(ctx: Ctx, source: PreparedSource, deployment: DeploymentT): void {
  const configPath = deployment.source_revision_config.agent_config_path?.replace(/^\.\//, "");
  if (!source.walk || !configPath) return;
  if (!source.walk.entries.some((entry) => entry.type === "file" && entry.path === configPath)) {
    ctx.log.warn(
      `${configPath} (the deployment's agent_config_path) is not in the tarball of ${source.display}; the build will not find it`,
    );
  }
}
