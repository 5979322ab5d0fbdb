// The hosted service's published interface description (test/fixtures/control-plane.openapi.json,
// a copy of shared/spec/control-plane.openapi.json, so that the tests run on a clone without
// shared/) and validators for its request and response schemas (JSON Schema 2020-12, the
// dialect of OpenAPI 3.1, with the `uuid` and `date-time` formats checked).
//
// The document is the service's word on shapes; where it and the spec differ the spec wins,
// and each difference is named in test/contract/ where it matters.
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS with a default export: reach it under either interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema: unknown }[];
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

export const openapi = JSON.parse(
  readFileSync(new URL("../fixtures/control-plane.openapi.json", import.meta.url), "utf8"),
) as OpenApiDocument;

const DOCUMENT_ID = "control-plane.openapi.json";
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
// The document's own top-level keys are not schema keywords; schemas are reached by pointer.
ajv.addVocabulary(["openapi", "info", "paths", "components"]);
ajv.addSchema(openapi, DOCUMENT_ID);

/** A JSON pointer as a URI fragment: `~` and `/` escaped, then `{` `}` and the like percent-encoded. */
const pointer = (...parts: string[]) =>
  parts.map((p) => encodeURIComponent(p.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/");
const compiled = new Map<string, ValidateFunction>();

function validatorAt(path: string): ValidateFunction {
  let validate = compiled.get(path);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${path}` });
    compiled.set(path, validate);
  }
  return validate;
}

export interface OperationRef {
  method: string;
  /** The path as the document writes it: /v2/deployments/{deployment_id}. */
  path: string;
}

/** Every operation the document describes. */
export function documentedOperations(): OperationRef[] {
  return Object.entries(openapi.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })),
  );
}

export function operation({ method, path }: OperationRef): Operation | undefined {
  return openapi.paths[path]?.[method.toLowerCase()];
}

/** The statuses the document describes for an operation. */
export function documentedStatuses(ref: OperationRef): number[] {
  return Object.keys(operation(ref)?.responses ?? {}).map(Number);
}

export type Verdict =
  | { described: true; valid: true }
  | { described: true; valid: false; errors: string }
  | { described: false; reason: string };

/**
 * Does `body` (parsed JSON, or undefined for none) fit the document's response for this
 * operation and status? A status the document does not list is "not described". A response
 * the document gives no schema (`{}`) takes any JSON body; one it gives no content takes none.
 */
export function checkResponse(ref: OperationRef, status: number, body: unknown, text: string): Verdict {
  const described = operation(ref)?.responses[String(status)];
  if (!described)
    return { described: false, reason: `${ref.method} ${ref.path} ${status} is not in the document` };
  const content = described.content?.["application/json"];
  if (!content) {
    return text === ""
      ? { described: true, valid: true }
      : { described: true, valid: false, errors: `expected no body, got ${text.slice(0, 200)}` };
  }
  if (body === undefined)
    return {
      described: true,
      valid: false,
      errors: `expected JSON, got ${JSON.stringify(text.slice(0, 200))}`,
    };
  if (!content.schema || Object.keys(content.schema).length === 0) return { described: true, valid: true };
  const validate = validatorAt(
    pointer(
      "paths",
      ref.path,
      ref.method.toLowerCase(),
      "responses",
      String(status),
      "content",
      "application/json",
      "schema",
    ),
  );
  return validate(body)
    ? { described: true, valid: true }
    : { described: true, valid: false, errors: ajv.errorsText(validate.errors, { separator: "\n" }) };
}

/** Validates `body` against the document's request body schema of an operation: null when valid, else the errors. */
export function checkRequest(ref: OperationRef, body: unknown): string | null {
  if (!operation(ref)?.requestBody)
    throw new Error(`${ref.method} ${ref.path} takes no body in the document`);
  const validate = validatorAt(
    pointer(
      "paths",
      ref.path,
      ref.method.toLowerCase(),
      "requestBody",
      "content",
      "application/json",
      "schema",
    ),
  );
  return validate(body) ? null : ajv.errorsText(validate.errors, { separator: "\n" });
}

/**
 * Validates a request's parameters as sent (its path's values, its query string) against the
 * document's parameters of an operation: null when valid, else the problems. Each value is taken
 * as the service's framework takes text (an integer's digits as a number, `true` a boolean) and
 * checked against its schema; repeated names make an array (the default `form`, `explode: true`
 * style), and a scalar takes one value; a required parameter must be there, and a query
 * parameter the document does not name is a problem too (a client that sends one relies on
 * what is not promised).
 */
export function checkParameters(
  ref: OperationRef,
  pathValues: Record<string, string>,
  query: URLSearchParams,
): string | null {
  const parameters = operation(ref)?.parameters;
  if (!parameters) throw new Error(`${ref.method} ${ref.path} is not in the document`);
  const problems: string[] = [];
  const indexed = parameters.map((p, index) => ({ ...p, index }));
  const inQuery = indexed.filter((p) => p.in === "query");
  for (const name of new Set(query.keys())) {
    if (!inQuery.some((p) => p.name === name)) problems.push(`${name}: not a parameter of the document`);
  }
  for (const parameter of indexed.filter((p) => p.in === "path" || p.in === "query")) {
    const given = parameter.in === "path" ? pathValues[parameter.name] : undefined;
    const values =
      parameter.in === "path" ? (given === undefined ? [] : [given]) : query.getAll(parameter.name);
    if (values.length === 0) {
      if (parameter.required) problems.push(`${parameter.name}: required`);
      continue;
    }
    const isArray = (parameter.schema as { type?: unknown }).type === "array";
    if (!isArray && values.length > 1) problems.push(`${parameter.name}: given ${values.length} times`);
    const validate = validatorAt(
      pointer("paths", ref.path, ref.method.toLowerCase(), "parameters", String(parameter.index), "schema"),
    );
    // A scalar's text is what a string parameter takes; a number's or a boolean's is read as one.
    const valid = isArray ? validate(values) : validate(values[0]) || validate(typed(values[0]!));
    if (!valid) problems.push(`${parameter.name}=${values.join(",")}: ${ajv.errorsText(validate.errors)}`);
  }
  return problems.length ? problems.join("\n") : null;
}

/** checkParameters of an operation without path parameters, its query alone. */
export function checkQuery(ref: OperationRef, query: URLSearchParams): string | null {
  return checkParameters(ref, {}, query);
}

/** A query value as the service's framework reads it for a scalar parameter. */
function typed(text: string): unknown {
  if (/^-?\d+$/.test(text)) return Number(text);
  if (text === "true" || text === "false") return text === "true";
  return text;
}
