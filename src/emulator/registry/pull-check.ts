// Whether a revision could pull its image: the emulator's stand-in for the runtime's pull. An
// image_uri that points into the emulator's registry must name a manifest the registry holds,
// in a repository of the deployment's own tenant; otherwise the revision fails at
// AWAITING_DEPLOY with the runtime's words, "manifest unknown", as the hosted service's does.
// Any other image_uri is somebody else's registry: the emulator cannot look, and lets it deploy.
import { parseImageReference, splitHostPort } from "../../model/image-reference.js";
import type { Store } from "../store.js";
import { repositoryDeployment } from "./access.js";
import type { RegistryStorage } from "./storage.js";

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;
const WILDCARD = new Set(["0.0.0.0", "::", "[::]"]);

export interface PullCheck {
  storage: RegistryStorage;
  store: Store;
  /** The registry's port; null before it listens. */
  port: () => number | null;
  /** The host the emulator listens on: its own name for the registry besides the loopback ones. */
  listenHost: string;
}

/** Why `imageUri` cannot be pulled by a deployment of `tenantId`; null when it can (or is not ours to say). */
export function pullProblem(check: PullCheck, tenantId: string, imageUri: string): string | null {
  const reference = parseImageReference(imageUri);
  const port = check.port();
  if (!reference || port === null) return null;
  const { hostname, port: given } = splitHostPort(reference.host);
  if (given !== port) return null;
  const own = LOOPBACK.test(hostname) || hostname === check.listenHost || WILDCARD.has(check.listenHost);
  if (!own) return null;
  const name = reference.digest ?? reference.tag ?? "latest";
  const deploymentId = repositoryDeployment(reference.repository);
  const visible = deploymentId !== null && check.store.find(tenantId, deploymentId) !== undefined;
  if (visible && check.storage.resolves(reference.repository, name)) return null;
  return `Failed to pull image "${imageUri}": manifest unknown: the registry at ${reference.host} holds no manifest ${name} in ${reference.repository} for this deployment's tenant; push the image first (cpctl deploy push --image or --image-archive)`;
}
