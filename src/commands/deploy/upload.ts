import { InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { createUploadUrl, getDeployment, uploadTarball } from "../../api/endpoints.js";
import type { Ctx } from "../../context.js";
import { NetworkError, UsageError, ValidationError } from "../../errors.js";
import { changesBetween } from "../../model/changes.js";
import { mergeChange } from "../../model/merge.js";
import type { DeploymentT } from "../../model/responses.js";
import { describeIssue, validatePatchRequest } from "../../model/validate.js";
import { guardMutation } from "../../operations/confirm.js";
import { patchWithPreview } from "../../operations/patch.js";
import { resolveDeployment } from "../../operations/resolve.js";
import { DEFAULT_MAX_UPLOAD_BYTES, formatBytes, parseSize, SIZE_HELP } from "../../upload/size.js";
import { describeSource, leftOutWarnings, type PreparedSource, prepareSource } from "../../upload/source.js";
import { CREDENTIAL_FILES } from "../../upload/walk.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { addWaitOptions, WAIT_HELP } from "./wait-options.js";

interface UploadOptions {
  maxSize: number;
  includeCredentials?: boolean;
  patch?: boolean;
  wait?: boolean;
  dryRun?: boolean;
  timeout: number;
  interval: number;
}

export default defineCommand({
  configure: (command) =>
    addWaitOptions(
      command
        .argument("<deployment>", "deployment ID, or its exact name (an internal_source deployment)")
        .argument(
          "<source>",
          "a directory (packed for you, honouring .gitignore) or a .tar.gz/.tgz file (sent as it is)",
        )
        .addOption(
          new Option("--max-size <size>", "refuse a gzipped tarball larger than this, e.g. 50MiB, 1GiB, 20MB")
            .default(DEFAULT_MAX_UPLOAD_BYTES, "100MiB")
            .argParser(sizeOption),
        )
        .option(
          "--patch",
          "then set source_revision_config.source_tarball_path to the upload: starts a new revision",
        )
        .option(
          "--include-credentials",
          "pack files that usually hold credentials too (.env*, .npmrc, *.pem, id_rsa*, ...: left out by default)",
        )
        .option("--dry-run", "pack and check the source and the deployment; upload nothing"),
      "with --patch: wait for the new revision (as `deploy wait`)",
    ).addHelpText(
      "after",
      `
A directory is packed into a gzipped tarball of its regular files: .gitignore files (the
root's and nested ones) are honoured, .git/ and node_modules/ are always left out, and
symbolic links are skipped with a warning. Files that usually hold credentials are left out,
with a warning naming them, unless --include-credentials: ${CREDENTIAL_FILES.join(", ")}.
A name with a line break, or that is not UTF-8, is skipped with a warning. Modes are
normalised to 644/755 and every mtime is the same fixed date, so the same files give the
same tarball.

The size limit is checked before anything is sent. Then the command asks for an upload URL
(POST .../upload-url), PUTs the tarball to it, and prints the object path (-o json:
{"deployment_id","object_path","bytes"}). The upload URL itself is never printed: it grants
write access. With --patch it then patches the path in and prints the deployment, as
\`deploy patch\` does.${WAIT_HELP}${examples(
        "cpctl deploy upload my-agent ./agent --patch --wait",
        "cpctl deploy upload my-agent build/agent.tgz",
        'cpctl deploy patch my-agent --source-tarball-path "$(cpctl deploy upload my-agent .)"',
        "cpctl deploy upload my-agent . --dry-run      # list what would be packed",
      )}`,
    ),
  run: async (ctx, [ref, path], options) => {
    await runUpload(ctx, ref, path, options);
  },
});

async function runUpload(ctx: Ctx, ref: string, path: string, options: UploadOptions): Promise<void> {
  if (options.wait && !options.patch) {
    throw new UsageError("--wait needs --patch: an upload alone starts no revision");
  }
  // Everything local first: a bad path or an oversized tarball costs no request.
  const source = await prepareSource(ctx.cwd, path, options.maxSize, {
    includeCredentials: Boolean(options.includeCredentials),
    signal: ctx.signal,
  });
  try {
    await uploadSource(ctx, ref, source, options);
  } finally {
    source.tarball.dispose();
  }
}

async function uploadSource(
  ctx: Ctx,
  ref: string,
  source: PreparedSource,
  options: UploadOptions,
): Promise<void> {
  ctx.log.info(describeSource(source));
  for (const warning of leftOutWarnings(source)) ctx.log.warn(warning);

  const deployment = await resolveDeployment(ctx, ref);
  if (deployment.source !== "internal_source") {
    throw new UsageError(
      `deployment ${deployment.name} has source ${deployment.source}: only internal_source deployments are built from an uploaded tarball`,
    );
  }
  warnMissingAgentConfig(ctx, source, deployment);

  const printer = await ctx.printer();
  if (options.dryRun) {
    const files = source.walk
      ? source.walk.entries.filter((e) => e.type === "file").map((e) => e.path)
      : null;
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
  if (options.patch)
    await guardMutation(ctx, `upload ${source.display} and start a revision of ${deployment.name}`);
  const api = await ctx.api();
  const { upload_url: uploadUrl, object_path: objectPath } = await createUploadUrl(api, deployment.id);
  // The pre-signed URL grants write access: no message or trace may show it.
  ctx.rememberSecret(uploadUrl);
  ctx.log.info(`uploading ${formatBytes(source.tarball.bytes)} to ${objectPath}`);
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
  ctx.log.info(`uploaded ${objectPath} (sha256 ${source.tarball.sha256})`);

  if (!options.patch) {
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
  const current = await getDeployment(api, deployment.id);
  const merged = mergeChange(current, {
    body: { source_revision_config: { source_tarball_path: objectPath } },
  });
  const checked = validatePatchRequest(merged.body, current);
  if (!checked.ok) {
    throw new ValidationError(
      `the patch is not valid:\n${checked.issues.map((issue) => `  ${describeIssue(issue)}`).join("\n")}`,
      checked.issues,
    );
  }
  await patchWithPreview(
    ctx,
    current,
    { body: checked.value, changes: changesBetween(current, merged.after) },
    options,
  );
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

function sizeOption(value: string): number {
  const bytes = parseSize(value);
  if (bytes === null) throw new InvalidArgumentError(`expected a size (${SIZE_HELP}).`);
  return bytes;
}
