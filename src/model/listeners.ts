// The listener requests: the OpenAPI document's ListenerCreateRequest and ListenerPatchRequest
// (service-facts "Bulk delete and listeners"). cpctl checks its bodies with them before it
// sends, and the emulator checks what it receives with them (422 in the API's shape), so both
// refuse the same bodies with the same field paths.
//
// Stricter than the document where it leaves a value open, as the deployment requests are:
// unknown fields are refused (a typo is caught, not ignored); a namespace is a Kubernetes
// namespace name (a DNS label, as a deployment's listener_config.k8s_namespace) and is not
// repeated; a compute ID is printable text without surrounding white space.
import * as z from "zod/mini";
import { LISTENER_COMPUTE_TYPES } from "./enums.js";
import { dnsLabel, nullish, string } from "./leaves.js";
import { type Validated, validateShape } from "./validate.js";

/** The longest compute ID cpctl sends and the emulator takes (the document shows no bound). */
export const COMPUTE_ID_MAX = 255;

const computeId = string.check(
  z.minLength(1, { error: "must not be empty" }),
  z.maxLength(COMPUTE_ID_MAX, { error: `must be at most ${COMPUTE_ID_MAX} characters` }),
  z.regex(/^(\S(.*\S)?)?$/, { error: "must not start or end with white space" }),
  z.regex(/^[^\p{Cc}]*$/u, { error: "must not contain control characters" }),
);

const namespaces = z.array(dnsLabel).check(
  z.refine((list) => new Set(list).size === list.length, {
    error: "must not name a namespace twice",
  }),
);

const ComputeConfig = z.strictObject({ k8s_namespaces: nullish(namespaces) });

export const ListenerCreateRequest = z.strictObject({
  compute_type: z.enum(LISTENER_COMPUTE_TYPES),
  compute_id: computeId,
  compute_config: ComputeConfig,
  version: nullish(string),
});

/** Null (or absent) leaves a field as it is; compute_config.k8s_namespaces, when given, is the whole list. */
export const ListenerPatchRequest = z.strictObject({
  compute_config: nullish(ComputeConfig),
  version: nullish(string),
});

export type ListenerCreate = z.infer<typeof ListenerCreateRequest>;
export type ListenerPatch = z.infer<typeof ListenerPatchRequest>;

export function validateListenerCreate(input: unknown): Validated<ListenerCreate> {
  return validateShape(ListenerCreateRequest, input);
}

export function validateListenerPatch(input: unknown): Validated<ListenerPatch> {
  return validateShape(ListenerPatchRequest, input);
}

/** Why `value` cannot be a listener's namespace (a DNS label), or null when it can. */
export function namespaceProblem(value: string): string | null {
  const parsed = dnsLabel.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? "is not a DNS label");
}
