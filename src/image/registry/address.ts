// Where a push goes: the push token's registry_url ("HOST[:PORT]/PREFIX", no scheme, as the
// service gives it; a scheme, when present, is kept as a hint and dropped from the name) and
// the image name under it. A registry on a loopback address is spoken to in plain HTTP, as
// docker treats 127.0.0.0/8 ("insecure registries") and as the local emulator serves it;
// everything else over HTTPS.
import { UsageError } from "../../errors.js";
import { REPOSITORY_NAME, splitHostPort } from "../../model/image-reference.js";

export interface RegistryAddress {
  /** http(s)://HOST[:PORT]: where requests go. */
  origin: string;
  /** HOST[:PORT], as image references and `docker login` write it. */
  host: string;
  /** The path prefix under the host, without slashes at its ends ("" for none). */
  prefix: string;
  /** Plain HTTP: engines need to be told (podman's --tls-verify=false). */
  insecure: boolean;
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export function registryAddress(registryUrl: string): RegistryAddress {
  const match = /^(?:(https?):\/\/)?([^/\s]+)((?:\/[^/\s]+)*)\/?$/i.exec(registryUrl.trim());
  const prefix = match?.[3]?.replace(/^\//, "") ?? "";
  if (!match || (prefix !== "" && !REPOSITORY_NAME.test(prefix))) {
    throw new UsageError(
      `the control plane gave an unusable registry_url ${JSON.stringify(registryUrl.slice(0, 200))}: expected HOST[:PORT]/PATH`,
    );
  }
  const host = match[2]!;
  const scheme = match[1]?.toLowerCase() ?? (LOOPBACK.test(splitHostPort(host).hostname) ? "http" : "https");
  return { origin: `${scheme}://${host}`, host, prefix, insecure: scheme === "http" };
}

/** The repository (path under the host) of image `name`. */
export function repositoryOf(address: RegistryAddress, name: string): string {
  return address.prefix ? `${address.prefix}/${name}` : name;
}

/** `HOST/PREFIX/NAME`: the image reference without tag or digest. */
export function imageReference(address: RegistryAddress, name: string): string {
  return `${address.host}/${repositoryOf(address, name)}`;
}

/**
 * A deployment name as an image name: lower case, every run of other characters a dash (the
 * repository grammar allows no upper case, spaces or most punctuation).
 */
export function imageNameFor(deploymentName: string): string {
  const name = deploymentName
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/[._-]{2,}/g, "-")
    .replace(/^[._-]+|[._-]+$/g, "")
    .slice(0, 128)
    .replace(/[._-]+$/, "");
  return name && REPOSITORY_NAME.test(name) ? name : "image";
}
