// What a push sends, made from an image archive before anything goes over the network: the
// blobs (config and layers, each once, with its digest and size) and the manifests (children
// before the index that names them; the last one is the image, pushed under the tag). A push
// is then nothing but this plan played against a registry (push.ts).
import type { FileBytes } from "./archive/files.js";

export interface PlanBlob {
  digest: string;
  size: number;
  mediaType: string;
  bytes: FileBytes;
  /** What it is, for progress: "config", "layer 2/3". */
  label: string;
}

export interface PlanManifest {
  digest: string;
  mediaType: string;
  bytes: Buffer;
}

export interface PushPlan {
  format: "docker-archive" | "oci-layout";
  /** What was read, for messages: "docker archive app.tar (example/agent:latest)". */
  source: string;
  blobs: PlanBlob[];
  /** In push order: the manifests an index names come before it; the last is the image. */
  manifests: PlanManifest[];
  /** The image's ID as the engines show it (its config digest): the default tag uses it. */
  imageId: string;
}

export function topManifest(plan: PushPlan): PlanManifest {
  const top = plan.manifests.at(-1);
  if (!top) throw new Error("a push plan without a manifest");
  return top;
}

export function planBytes(plan: PushPlan): number {
  return plan.blobs.reduce((sum, blob) => sum + blob.size, 0);
}
