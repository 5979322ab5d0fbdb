// The registry's answers to what goes wrong, in the OCI distribution spec's error shape:
// `{"errors": [{"code", "message", "detail"}]}`, with the status each code goes with. docker,
// podman and skopeo print `code: message` from it, so the messages say what to do.

export type RegistryErrorCode =
  | "BLOB_UNKNOWN"
  | "BLOB_UPLOAD_INVALID"
  | "BLOB_UPLOAD_UNKNOWN"
  | "DIGEST_INVALID"
  | "MANIFEST_BLOB_UNKNOWN"
  | "MANIFEST_INVALID"
  | "MANIFEST_UNKNOWN"
  | "NAME_INVALID"
  | "NAME_UNKNOWN"
  | "SIZE_INVALID"
  | "TAG_INVALID"
  | "UNAUTHORIZED"
  | "DENIED"
  | "UNSUPPORTED"
  | "UNAVAILABLE";

export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly code: RegistryErrorCode,
    message: string,
    readonly detail: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "RegistryError";
  }

  body(): Buffer {
    const error: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.detail !== null) error.detail = this.detail;
    return Buffer.from(JSON.stringify({ errors: [error] }));
  }
}

export const blobUnknown = (digest: string) =>
  new RegistryError(404, "BLOB_UNKNOWN", "blob unknown to registry", { digest });

export const manifestUnknown = (reference: string) =>
  new RegistryError(404, "MANIFEST_UNKNOWN", "manifest unknown", { reference });

export const uploadUnknown = (id: string) =>
  new RegistryError(
    404,
    "BLOB_UPLOAD_UNKNOWN",
    "blob upload unknown to registry: it was finished, cancelled or abandoned; start a new upload",
    { uuid: id },
  );

export const digestInvalid = (message: string, detail: unknown = null) =>
  new RegistryError(400, "DIGEST_INVALID", message, detail);
