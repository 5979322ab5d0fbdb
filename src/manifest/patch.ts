// `deploy patch`'s flags and file turned into the partial change that model/plan.ts merges into
// the deployment: the body built as for any command (build.ts), then what only a patch refuses,
// before anything is planned or sent. The errors come in this order: nothing named, a fixed
// field changed, a --replace-* flag with nothing to keep, the body's shape.
import { UsageError } from "../errors.js";
import type { PartialChange } from "../model/merge.js";
import type { DeploymentT } from "../model/responses.js";
import { validatePatchShape } from "../model/validate.js";
import { type BodyContext, type BodyOptions, type BuiltBody, buildBody, rejectIssues } from "./build.js";
import { SECRET_FLAGS } from "./secrets.js";

/** How a patch treats what it does not name. (A type, not an interface: commander's option sets are.) */
export type MergeFlags = {
  unsetSecret?: string[];
  unsetSecretRef?: string[];
  replaceSecrets?: boolean;
  replaceSecretRefs?: boolean;
  replaceResourceSpec?: boolean;
};

export interface PatchRequest {
  built: BuiltBody;
  change: PartialChange;
}

export async function patchRequest(
  flags: BodyOptions & MergeFlags,
  ctx: BodyContext,
  current: DeploymentT,
): Promise<PatchRequest> {
  const built = await buildBody("patch", flags, ctx, current);
  const unsets = (flags.unsetSecret?.length ?? 0) + (flags.unsetSecretRef?.length ?? 0);
  if (!built.hasFields && unsets === 0) {
    if (flags.secretsFile !== undefined) {
      const file = flags.secretsFile === "-" ? "- (stdin)" : flags.secretsFile;
      throw new UsageError(
        `${(flags.secretNaming ?? SECRET_FLAGS).secretsFile}${file} holds no secrets (NAME=VALUE lines): nothing to change`,
      );
    }
    throw new UsageError(
      "nothing to change: give a field flag (e.g. --image-uri), --set PATH=VALUE, a secret flag or -f FILE",
    );
  }
  dropFixedIdentity(built.body, current);
  checkReplaceFlags(built, flags);
  const shape = validatePatchShape(built.body);
  if (!shape.ok) return rejectIssues(built, shape.issues, "the patch");
  if (Array.isArray(built.body.secrets) && built.body.secrets.length === 0 && !flags.replaceSecrets) {
    ctx.log.info(
      "note: an empty secrets list in a patch changes nothing (secrets merge by name); --replace-secrets makes it the whole set",
    );
  }
  return {
    built,
    change: {
      body: built.body,
      clear: built.clears,
      unsetSecrets: flags.unsetSecret,
      unsetSecretRefs: flags.unsetSecretRef,
      replaceSecrets: flags.replaceSecrets,
      replaceSecretRefs: flags.replaceSecretRefs,
      replaceResourceSpec: flags.replaceResourceSpec,
    },
  };
}

/** A --replace-* flag makes what is given the whole set: with nothing given it would empty it. */
function checkReplaceFlags(built: BuiltBody, flags: MergeFlags): void {
  const spec = (built.body.source_config as { resource_spec?: unknown } | undefined)?.resource_spec;
  const missing: string[] = [];
  if (flags.replaceSecrets && !Array.isArray(built.body.secrets))
    missing.push(
      "--replace-secrets needs the secrets to keep (--secret, --secrets-file or a secrets list in -f FILE)",
    );
  if (flags.replaceSecretRefs && !Array.isArray(built.body.secret_references))
    missing.push(
      "--replace-secret-refs needs the references to keep (--secret-ref, or secret_references in -f FILE)",
    );
  if (flags.replaceResourceSpec && spec == null)
    missing.push(
      "--replace-resource-spec needs the resource fields to keep (resource flags, --set or -f FILE)",
    );
  if (missing.length > 0) {
    throw new UsageError(missing.join("\n")).withHint(
      "To remove everything, say so: --set secrets=null, --set secret_references=null or --set source_config.resource_spec=null.",
    );
  }
}

/**
 * A file written for create carries `name` and `source`, which a patch body has no room for.
 * Equal to the deployment's they say nothing and are dropped; different, they are an error.
 */
function dropFixedIdentity(body: Record<string, unknown>, current: DeploymentT): void {
  for (const field of ["name", "source"] as const) {
    if (!(field in body)) continue;
    if (body[field] !== current[field]) {
      throw new UsageError(
        `${field} is fixed at creation: the deployment's ${field} is '${current[field]}', not '${String(body[field])}'; remove ${field} from the file or create a new deployment`,
      );
    }
    delete body[field];
  }
}
