// The media type of an answer, as the client and its error messages read it.

/** "application/json; charset=utf-8" -> "application/json" ("" when there is none). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** JSON, or a JSON-based type such as application/problem+json. */
export function isJsonType(type: string): boolean {
  return type === "application/json" || type.endsWith("+json");
}
