// The leaf schemas the model is built from (schemas.ts, responses.ts), and the optional and
// nullable wrappers around them.
//
// Each is built once and shared, wrappers included: every zod instance costs several
// microseconds to construct, the model has hundreds of fields, and every command that
// validates (the `deploy create --dry-run` path among them) builds the request schemas at
// start-up. Sharing is safe: a zod schema is an immutable value, and the paths in messages
// come from where a value is, not from the schema object. It builds 40% of the instances that
// one schema per field would (measured when this was written: the git history of
// docs/performance.md has the figures).
import * as z from "zod/mini";

/** `wrap`, made once per inner schema: the same inner schema gets the same wrapper. */
function sharedWrapper<W extends z.core.SomeType>(wrap: (inner: z.core.SomeType) => W) {
  const made = new WeakMap<z.core.SomeType, W>();
  return (inner: z.core.SomeType): W => {
    let wrapper = made.get(inner);
    if (wrapper === undefined) {
      wrapper = wrap(inner);
      made.set(inner, wrapper);
    }
    return wrapper;
  };
}
const optionalOf = sharedWrapper((inner) => z.optional(inner));
const nullableOf = sharedWrapper((inner) => z.nullable(inner));

// The casts only restore the inner type, which a cache keyed by any schema cannot carry; the
// wrapper's kind comes from the cache's own type.
/** An optional field: absent is fine, null is not. */
export const optional = <T extends z.core.SomeType>(inner: T) => optionalOf(inner) as z.ZodMiniOptional<T>;
export const nullable = <T extends z.core.SomeType>(inner: T) => nullableOf(inner) as z.ZodMiniNullable<T>;
/** Every request field is nullable, and absent means the same as null. */
export const nullish = <T extends z.core.SomeType>(inner: T) => optional(nullable(inner));

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const string = z.string();
export const boolean = z.boolean();
export const int = z.int();
const number = z.number();
export const dnsLabel = string.check(
  z.regex(DNS_LABEL, {
    error:
      "must be a DNS label: lowercase letters, digits and '-', at most 63, starting and ending alphanumeric",
  }),
);
export const envVarName = string.check(
  z.regex(C_IDENTIFIER, {
    error: "must be an environment variable name: letters, digits and '_', not starting with a digit",
  }),
);
export const nonEmpty = string.check(z.minLength(1, { error: "must not be empty" }));
export const count = int.check(z.gte(0, { error: "must be 0 or more" }));
export const megabytes = int.check(z.gte(1, { error: "must be at least 1 (MB)" }));
export const freeForm = z.record(string, z.unknown());
export const stringMap = z.record(string, string);
export const uuid = z.guid({ error: "must be a UUID (8-4-4-4-12 hexadecimal digits)" });

/** CPU requests: 0.1 to 8 cores (spec 2.4 and 8); rounding to one decimal is in resource-spec.ts. */
export const cpuRequest = number.check(
  z.gte(0.1, { error: "must be between 0.1 and 8 cores" }),
  z.lte(8, { error: "must be between 0.1 and 8 cores" }),
);
/** CPU limits: 0.1 to 16 cores. */
export const cpuLimit = number.check(
  z.gte(0.1, { error: "must be between 0.1 and 16 cores" }),
  z.lte(16, { error: "must be between 0.1 and 16 cores" }),
);
/** CPU fields without spec bounds (database, and the "do not use" ones). */
export const cpuUnbounded = number.check(z.gt(0, { error: "must be more than 0 cores" }));
