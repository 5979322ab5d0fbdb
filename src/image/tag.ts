// The tag an image is pushed under: `--tag`, or by default the time of the push and the
// image's short ID (`20260121-143005-3f2a9c1b7d0e`), so every push gets a tag of its own that
// sorts by time and says which image it is. The deployment is patched with the digest, never
// the tag: the tag is for people browsing the registry.
import { UsageError } from "../errors.js";
import { TAG } from "../model/image-reference.js";

export function defaultTag(nowMs: number, imageId: string): string {
  const iso = new Date(nowMs).toISOString();
  const stamp = `${iso.slice(0, 10).replace(/-/g, "")}-${iso.slice(11, 19).replace(/:/g, "")}`;
  const short = imageId.replace(/^sha256:/, "").slice(0, 12);
  return short ? `${stamp}-${short}` : stamp;
}

export function checkTag(tag: string): string {
  if (!TAG.test(tag)) {
    throw new UsageError(
      `--tag ${JSON.stringify(tag.slice(0, 140))} is not a valid tag: up to 128 letters, digits, _, . and -, not starting with . or -`,
    );
  }
  return tag;
}
