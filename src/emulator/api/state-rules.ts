// Rules that need the emulator's state, so the model (which sees one request body) cannot
// hold them: an integration or listener must be one of the tenant's, a namespace one of the
// listener's, a tarball path one the upload-url endpoint issued for this very deployment and
// that was uploaded. They run after the model has accepted the body, and answer in the same
// 422 shape, with `loc` starting at "body".
import type { FieldIssue } from "../../model/issue-path.js";
import type { CreateRequest, PatchRequest, SourceConfigRequestT } from "../../model/schemas.js";
import { fieldIssue } from "../responses.js";
import { isTenantIntegration } from "../store/seed.js";
import type { StoredDeployment, StoredListener, StoredUpload } from "../store/state.js";

/** The tenant's listener with this ID, if any (the store's: seeded, created, changed). */
export type FindListener = (tenantId: string, id: string) => StoredListener | undefined;

export function checkCreateAgainstState(
  tenantId: string,
  request: CreateRequest,
  findListener: FindListener,
): FieldIssue[] {
  const issues = checkSourceConfig(tenantId, request.source_config, findListener);
  const path = request.source_revision_config.source_tarball_path;
  if (path != null) {
    // Upload paths are issued per deployment, and this one does not exist yet.
    issues.push(
      fieldIssue(
        ["body", "source_revision_config", "source_tarball_path"],
        "cannot be set on create: object paths are issued per deployment by POST /v2/deployments/{id}/upload-url; " +
          "create the deployment first, then upload and patch the path in",
      ),
    );
  }
  return issues;
}

export function checkPatchAgainstState(
  deployment: StoredDeployment,
  patch: PatchRequest,
  findUpload: (objectPath: string) => StoredUpload | undefined,
  findListener: FindListener,
): FieldIssue[] {
  const issues = patch.source_config
    ? checkSourceConfig(deployment.tenant_id, patch.source_config, findListener)
    : [];
  const path = patch.source_revision_config?.source_tarball_path;
  if (path != null) {
    const problem = tarballPathProblem(deployment, findUpload(path));
    if (problem) issues.push(fieldIssue(["body", "source_revision_config", "source_tarball_path"], problem));
  }
  return issues;
}

function tarballPathProblem(deployment: StoredDeployment, upload: StoredUpload | undefined): string | null {
  if (!upload || upload.tenant_id !== deployment.tenant_id || upload.deployment_id !== deployment.id) {
    return `is not an object path issued for this deployment: get one from POST /v2/deployments/${deployment.id}/upload-url and upload the tarball to its upload_url; arbitrary paths are rejected`;
  }
  if (upload.uploaded_at === null) {
    return "was issued, but no tarball has been uploaded to it yet: PUT the gzipped tarball to the upload_url first";
  }
  return null;
}

function checkSourceConfig(
  tenantId: string,
  config: SourceConfigRequestT,
  findListener: FindListener,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (config.integration_id != null && !isTenantIntegration(tenantId, config.integration_id)) {
    issues.push(
      fieldIssue(
        ["body", "source_config", "integration_id"],
        "is not one of your git integrations: pick an id from GET /v1/integrations/gitrepo/install (or the alt listing)",
      ),
    );
  }
  if (config.listener_id != null) {
    const listener = findListener(tenantId, config.listener_id);
    const namespace = config.listener_config?.k8s_namespace;
    if (!listener) {
      issues.push(
        fieldIssue(
          ["body", "source_config", "listener_id"],
          "is not one of your listeners: pick an id from GET /v2/listeners",
        ),
      );
    } else if (namespace != null && !listener.k8s_namespaces.includes(namespace)) {
      issues.push(
        fieldIssue(
          ["body", "source_config", "listener_config", "k8s_namespace"],
          `is not a namespace of listener ${listener.id}; it has: ${listener.k8s_namespaces.join(", ") || "none"}`,
        ),
      );
    }
  }
  return issues;
}
