// The merge of a partial change into a deployment (CLI.md "Changing part of a deployment:
// nothing is lost"), against an oracle written here from the contract's words: what the
// deployment holds after the PATCH is the deployment before plus exactly the named change.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { looksMasked } from "../secrets.js";
import { changesBetween } from "./changes.js";
import { type DeploymentState, mergeChange, type PartialChange, predictPatched } from "./merge.js";
import { fieldsAtDefault } from "./resource-spec.js";

type Json = Record<string, unknown>;

// --- the oracle ---------------------------------------------------------------------------

/** Spec 2.4's defaults, re-read: "Limit defaults below apply when the limit field is not set." */
const ORACLE_DEFAULTS: [string, string, number][] = [
  ["cpu_limit", "cpu", 2],
  ["memory_limit_mb", "memory_mb", 2],
  ["queue_min_scale", "min_scale", 1],
  ["queue_max_scale", "max_scale", 1],
  ["queue_cpu", "cpu", 1],
  ["queue_cpu_limit", "queue_cpu", 2],
  ["queue_memory_mb", "memory_mb", 1],
  ["queue_memory_limit_mb", "queue_memory_mb", 2],
];

function oracleStored(explicit: Json): Json {
  const stored: Json = { ...explicit };
  for (const [target, from, factor] of ORACLE_DEFAULTS) {
    if (stored[target] === undefined && typeof stored[from] === "number")
      stored[target] = Math.round((stored[from] as number) * factor * 10) / 10;
  }
  return stored;
}

/** The fields of a stored spec that equal what their default would give ("sat at its default"). */
function oracleAtDefault(stored: Json): Set<string> {
  const result = new Set<string>();
  for (const [target, from, factor] of ORACLE_DEFAULTS) {
    if (
      typeof stored[from] === "number" &&
      stored[target] === Math.round((stored[from] as number) * factor * 10) / 10
    )
      result.add(target);
  }
  return result;
}

interface Scenario {
  current: DeploymentState;
  change: PartialChange;
  /** The spec fields the change sets, and the ones (and label keys) it clears. */
  spec: { set: Json; clearFields: string[]; clearLabels: string[]; replace: boolean } | null;
  secrets: { set: Record<string, string>; unset: string[]; replace: boolean } | null;
  refs: { set: Record<string, [string, string]>; unset: string[]; replace: boolean } | null;
}

function expectedAfter(s: Scenario): Json {
  const current = s.current as unknown as Json & { source_config: Json; source_revision_config: Json };
  const body = s.change.body as Json & { source_config?: Json; source_revision_config?: Json };

  let secrets = new Map((s.current.secrets ?? []).map((x) => [x.name, x.value as unknown]));
  if (s.secrets) {
    if (s.secrets.replace) secrets = new Map();
    for (const [name, value] of Object.entries(s.secrets.set)) secrets.set(name, value);
    for (const name of s.secrets.unset) secrets.delete(name);
  }
  let refs = new Map((s.current.secret_references ?? []).map((x) => [x.name, [x.secret_name, x.secret_key]]));
  if (s.refs) {
    if (s.refs.replace) refs = new Map();
    for (const [name, value] of Object.entries(s.refs.set)) refs.set(name, value);
    for (const name of s.refs.unset) refs.delete(name);
  }

  const currentSpec = (current.source_config.resource_spec ?? {}) as Json;
  let spec = currentSpec;
  if (s.spec) {
    const named = new Set([...Object.keys(s.spec.set), ...s.spec.clearFields]);
    const explicit: Json = {};
    if (!s.spec.replace) {
      const followers = oracleAtDefault(currentSpec);
      for (const [field, value] of Object.entries(currentSpec))
        if (!followers.has(field) || named.has(field)) explicit[field] = structuredClone(value);
    }
    for (const [field, value] of Object.entries(s.spec.set)) {
      explicit[field] =
        field === "labels" ? { ...((explicit.labels as Json | undefined) ?? {}), ...(value as Json) } : value;
    }
    for (const field of s.spec.clearFields) delete explicit[field];
    if (explicit.labels) for (const key of s.spec.clearLabels) delete (explicit.labels as Json)[key];
    // A map with no key says nothing: no map at all.
    for (const map of ["labels", "annotations"])
      if (explicit[map] && Object.keys(explicit[map] as Json).length === 0) delete explicit[map];
    spec = oracleStored(explicit);
    if (sameJson(spec, withoutEmptyMaps(currentSpec))) spec = currentSpec;
  }

  return {
    source_config: {
      ...current.source_config,
      ...Object.fromEntries(
        Object.entries(body.source_config ?? {}).filter(([k, v]) => k !== "resource_spec" && v != null),
      ),
      resource_spec: spec,
    },
    source_revision_config: {
      ...current.source_revision_config,
      ...Object.fromEntries(Object.entries(body.source_revision_config ?? {}).filter(([, v]) => v != null)),
    },
    secrets: Object.fromEntries(secrets),
    secret_references: Object.fromEntries(refs),
  };
}

function withoutEmptyMaps(spec: Json): Json {
  return Object.fromEntries(
    Object.entries(spec).filter(
      ([k, v]) => !(["labels", "annotations"].includes(k) && Object.keys(v as Json).length === 0),
    ),
  );
}

function sameJson(a: unknown, b: unknown): boolean {
  const sorted = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([x], [y]) => x.localeCompare(y))
            .map(([k, x]) => [k, sorted(x)]),
        )
      : v;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

/** The predicted deployment in the oracle's shape (maps by name; order means nothing). */
function comparable(state: DeploymentState): Json {
  return {
    source_config: { ...state.source_config, resource_spec: state.source_config.resource_spec ?? {} },
    source_revision_config: state.source_revision_config,
    secrets: Object.fromEntries((state.secrets ?? []).map((x) => [x.name, x.value])),
    secret_references: Object.fromEntries(
      (state.secret_references ?? []).map((x) => [x.name, [x.secret_name, x.secret_key]]),
    ),
  };
}

// --- generators ---------------------------------------------------------------------------

const SECRET_NAMES = ["A", "B", "C", "D", "E"];
const REF_NAMES = ["R1", "R2", "R3", "R4"];
const LABEL_KEYS = ["team", "tier", "app"];
// Real values: a value that looks like a mask is never kept (its own property below).
const value = fc.string({ minLength: 1, maxLength: 6 }).filter((v) => !looksMasked(v));
const cpu = fc.constantFrom(0.5, 1, 2, 4);
const memory = fc.constantFrom(256, 512, 1024);
const scale = fc.integer({ min: 1, max: 5 });
const labels = fc.dictionary(fc.constantFrom(...LABEL_KEYS), fc.constantFrom("x", "y", "z"));
const volumes = fc.constantFrom([{ name: "cache", emptyDir: {} }], [{ name: "data", emptyDir: {} }], []);

const requestSpec = fc.record(
  {
    min_scale: scale,
    max_scale: fc.constant(8),
    cpu,
    cpu_limit: fc.constantFrom(8, 16),
    memory_mb: memory,
    labels,
    annotations: labels,
    volumes,
    service_account_name: fc.constantFrom("runner", "builder"),
  },
  { requiredKeys: [] },
);

const namedValues = <T>(names: string[], item: fc.Arbitrary<T>) =>
  fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: names.length })
    .chain((chosen) => fc.tuple(...chosen.map((name) => item.map((v) => [name, v] as const))));

const current: fc.Arbitrary<DeploymentState> = fc
  .record({
    secrets: namedValues(SECRET_NAMES, value),
    refs: namedValues(REF_NAMES, fc.tuple(value, value)),
    spec: fc.option(requestSpec, { nil: null }),
    customUrl: fc.option(fc.constantFrom("https://a.example", "https://b.example"), { nil: null }),
  })
  .map(({ secrets, refs, spec, customUrl }) => ({
    source: "external_container" as const,
    source_config: { custom_url: customUrl, resource_spec: spec ? oracleStored(spec) : null },
    source_revision_config: { image_uri: "registry.example.com/a:1" },
    secrets: secrets.map(([name, v]) => ({ name, value: v })),
    secret_references: refs.map(([name, [secretName, key]]) => ({
      name,
      secret_name: secretName,
      secret_key: key,
    })),
  }));

const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    current,
    secrets: fc.option(
      fc.record({
        set: namedValues(SECRET_NAMES, value).map((entries) => Object.fromEntries(entries)),
        unset: fc.uniqueArray(fc.constantFrom(...SECRET_NAMES, "MISSING")),
        replace: fc.boolean(),
      }),
      { nil: null },
    ),
    refs: fc.option(
      fc.record({
        set: namedValues(REF_NAMES, fc.tuple(value, value)).map((entries) => Object.fromEntries(entries)),
        unset: fc.uniqueArray(fc.constantFrom(...REF_NAMES)),
        replace: fc.boolean(),
      }),
      { nil: null },
    ),
    spec: fc.option(
      fc.record({
        set: fc.record(
          { cpu, memory_mb: memory, max_scale: fc.constant(8), labels, volumes },
          { requiredKeys: [] },
        ) as fc.Arbitrary<Json>,
        clearFields: fc.uniqueArray(
          fc.constantFrom("service_account_name", "cpu_limit", "annotations", "volumes"),
        ),
        clearLabels: fc.uniqueArray(fc.constantFrom(...LABEL_KEYS)),
        replace: fc.boolean(),
      }),
      { nil: null },
    ),
    imageUri: fc.option(fc.constantFrom("registry.example.com/a:2"), { nil: null }),
    customUrl: fc.option(fc.constantFrom("https://c.example"), { nil: null }),
  })
  .map(({ current, secrets, refs, spec, imageUri, customUrl }) => {
    // A label key cleared and set in one change: the clear comes after (as --set after -f).
    const clear: (string | number)[][] = [];
    if (spec) {
      for (const field of spec.clearFields) clear.push(["source_config", "resource_spec", field]);
      for (const key of spec.clearLabels) clear.push(["source_config", "resource_spec", "labels", key]);
    }
    const change: PartialChange = {
      body: {
        source_config: {
          custom_url: customUrl,
          resource_spec: spec && Object.keys(spec.set).length > 0 ? spec.set : null,
        },
        source_revision_config: { image_uri: imageUri },
        secrets: secrets ? Object.entries(secrets.set).map(([name, v]) => ({ name, value: v })) : null,
        secret_references: refs
          ? Object.entries(refs.set).map(([name, [secretName, key]]) => ({
              name,
              secret_name: secretName,
              secret_key: key,
            }))
          : null,
      },
      clear,
      unsetSecrets: secrets?.unset,
      unsetSecretRefs: refs?.unset,
      replaceSecrets: secrets?.replace,
      replaceSecretRefs: refs?.replace,
      replaceResourceSpec: spec?.replace,
    };
    return { current, change, secrets, refs, spec };
  });

// --- properties ---------------------------------------------------------------------------

describe("mergeChange", () => {
  it("the deployment after the patch is the one before plus exactly the named change (property)", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { body, after } = mergeChange(s.current, s.change);
        expect(comparable(after)).toEqual(expectedAfter(s));
        // The prediction is what the body does to the deployment as the service applies a PATCH.
        expect(predictPatched(s.current, body)).toEqual(after);
      }),
      { numRuns: 500 },
    );
  });

  it("sends a whole-replaced family only when it changes: an unchanged one would start a revision (property)", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { body, after } = mergeChange(s.current, s.change);
        const changed = changesBetween(s.current, after).map((c) => c.path);
        expect("secrets" in body).toBe(changed.some((p) => p.startsWith("secrets.")));
        expect("secret_references" in body).toBe(changed.some((p) => p.startsWith("secret_references.")));
        expect(Boolean((body.source_config as Json | undefined)?.resource_spec)).toBe(
          changed.some((p) => p.startsWith("source_config.resource_spec.")),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("lists every removal in the changes (property)", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { after } = mergeChange(s.current, s.change);
        const removed = changesBetween(s.current, after)
          .filter((c) => c.kind === "remove")
          .map((c) => c.path);
        const before = new Set((s.current.secrets ?? []).map((x) => x.name));
        const kept = new Set((after.secrets ?? []).map((x) => x.name));
        for (const name of before) expect(removed.includes(`secrets.${name}`)).toBe(!kept.has(name));
      }),
      { numRuns: 200 },
    );
  });
});

// --- hidden values ----------------------------------------------------------------------------

const pick = <T>(...items: T[]) => fc.constantFrom(...items);
const few = (chars: string, max: number) =>
  fc.string({ unit: fc.constantFrom(...chars.split("")), minLength: 0, maxLength: max });
const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const randomCase = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(""));

/** The ways services show a secret without its value. */
const mask = fc.oneof(
  fc.integer({ min: 1, max: 40 }).chain((n) => pick("*", "•", "●").map((c) => c.repeat(n))),
  fc
    .tuple(few(ALNUM + "-_", 8), fc.integer({ min: 3, max: 12 }), few(ALNUM, 6))
    .map(([prefix, stars, suffix]) => `${prefix}${"*".repeat(stars)}${suffix}`),
  fc
    .tuple(
      pick("[]", "<>", "()", "{}"),
      pick("redacted", "hidden", "masked", "secret", "sensitive", "filtered", "removed", "omitted").chain(
        randomCase,
      ),
      pick("", " "),
    )
    .map(([brackets, word, space]) => `${brackets[0]}${space}${word}${space}${brackets[1]}`),
  fc
    .tuple(few(ALNUM + "-_", 12), pick("...", "…", "...."), few(ALNUM, 12))
    .map(([prefix, dots, suffix]) => `${prefix}${dots}${suffix}`),
  pick("***REDACTED***", "", " ", "  ****  "),
);

/** Values of the kind real secrets have: tokens, keys, passwords, URLs with credentials. */
const realSecret = fc.oneof(
  fc.string({ unit: fc.constantFrom(...(ALNUM + "-_").split("")), minLength: 8, maxLength: 64 }),
  fc.base64String({ minLength: 12, maxLength: 88 }),
  fc.tuple(pick("sk-", "ghp_", "xoxb-", "AKIA", ""), few(ALNUM, 40)).map(([p, rest]) => `${p}${rest}x`),
  fc.webUrl().map((url) => url.replace("://", "://user:pa55@")),
);

describe("values that only look like values", () => {
  it("any value that looks like a mask is never written back as a value (property)", () => {
    fc.assert(
      fc.property(mask, fc.constantFrom("A", "B"), (hidden, which) => {
        expect(looksMasked(hidden)).toBe(true);
        const current: DeploymentState = {
          ...base,
          secrets: base.secrets!.map((s) => (s.name === which ? { ...s, value: hidden } : s)),
        };
        // Adding another secret would keep this one: refused, nothing to send.
        expect(() => mergeChange(current, { body: { secrets: [{ name: "C", value: "3" }] } })).toThrow(
          new RegExp(`returned secret ${which} without its value`),
        );
        // Overwriting it, or giving the whole set, sends nothing hidden.
        const { body } = mergeChange(current, { body: { secrets: [{ name: which, value: "new" }] } });
        expect((body.secrets as { value: string }[]).some((s) => looksMasked(s.value))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("values of the kind real secrets have are kept (property)", () => {
    fc.assert(
      fc.property(realSecret, (secret) => {
        expect(looksMasked(secret)).toBe(false);
        const current: DeploymentState = { ...base, secrets: [{ name: "A", value: secret }] };
        const { body } = mergeChange(current, { body: { secrets: [{ name: "C", value: "3" }] } });
        expect(body.secrets).toEqual([
          { name: "A", value: secret },
          { name: "C", value: "3" },
        ]);
      }),
      { numRuns: 300 },
    );
  });
});

const base: DeploymentState = {
  source: "external_container",
  source_config: {
    resource_spec: {
      cpu: 1,
      cpu_limit: 2,
      memory_mb: 512,
      memory_limit_mb: 1024,
      min_scale: 1,
      max_scale: 3,
      labels: { team: "a", tier: "web" },
      volumes: [{ name: "cache", emptyDir: {} }],
      sidecars: [{ name: "proxy", image: "envoy:1" }],
    },
  },
  source_revision_config: { image_uri: "x:1" },
  secrets: [
    { name: "A", value: "1" },
    { name: "B", value: "2" },
  ],
  secret_references: [{ name: "R", secret_name: "s", secret_key: "k" }],
};

describe("mergeChange, case by case", () => {
  it("a limit that sat at its default follows its request; one set apart from it stays", () => {
    const followed = mergeChange(base, { body: { source_config: { resource_spec: { cpu: 2 } } } });
    expect(followed.after.source_config.resource_spec).toMatchObject({
      cpu: 2,
      cpu_limit: 4,
      memory_limit_mb: 1024,
    });
    const pinned = { ...base, source_config: { resource_spec: { cpu: 1, cpu_limit: 3 } } };
    expect(
      mergeChange(pinned, { body: { source_config: { resource_spec: { cpu: 2 } } } }).after.source_config
        .resource_spec,
    ).toMatchObject({ cpu: 2, cpu_limit: 3 });
  });

  it("maps merge by key, lists are replaced only when named, and a clear removes one key", () => {
    const { body } = mergeChange(base, {
      body: { source_config: { resource_spec: { labels: { app: "x" } } } },
      clear: [["source_config", "resource_spec", "labels", "tier"]],
    });
    const spec = (body.source_config as Json).resource_spec as Json;
    expect(spec.labels).toEqual({ team: "a", app: "x" });
    expect(spec.volumes).toEqual([{ name: "cache", emptyDir: {} }]);
    expect(spec.sidecars).toEqual([{ name: "proxy", image: "envoy:1" }]);
    expect(spec).toMatchObject({ min_scale: 1, max_scale: 3, memory_mb: 512 });
  });

  it("--replace-resource-spec makes the fields given the whole spec", () => {
    const { after } = mergeChange(base, {
      body: { source_config: { resource_spec: { cpu: 2 } } },
      replaceResourceSpec: true,
    });
    expect(after.source_config.resource_spec).toEqual({
      cpu: 2,
      cpu_limit: 4,
      queue_cpu: 2,
      queue_cpu_limit: 4,
    });
  });

  it("refuses to keep secrets the server returned without their values, whatever hid them", () => {
    for (const hidden of [null, "", "****", "********", "[REDACTED]", "sk-...abcd", "<hidden>", "•••"]) {
      const current = { ...base, secrets: [{ name: "A", value: hidden as string }] };
      expect(() => mergeChange(current, { body: { secrets: [{ name: "B", value: "2" }] } })).toThrow(
        /returned secret A without its value[\s\S]*nothing was sent/,
      );
      // Nothing to keep: the change replaces it, or names the whole set.
      expect(() => mergeChange(current, { body: { secrets: [{ name: "A", value: "new" }] } })).not.toThrow();
      expect(() =>
        mergeChange(current, { body: { secrets: [{ name: "B", value: "2" }] }, replaceSecrets: true }),
      ).not.toThrow();
      // Secrets untouched: nothing is sent back.
      expect(() =>
        mergeChange(current, { body: { source_revision_config: { image_uri: "y" } } }),
      ).not.toThrow();
    }
  });

  it("--set PATH=null is refused where the API cannot clear, and clears all secrets where asked", () => {
    for (const path of [
      ["source_config", "install_command"],
      ["source_revision_config", "image_uri"],
      ["secrets", 0],
    ]) {
      expect(() => mergeChange(base, { body: {}, clear: [path] })).toThrow(UsageError);
      expect(() => mergeChange(base, { body: {}, clear: [path] })).toThrow(/cannot clear/);
    }
    expect(mergeChange(base, { body: {}, clear: [["secrets"]] }).body.secrets).toEqual([]);
  });

  it("names the unsets that name nothing, and sends nothing for them alone", () => {
    const merged = mergeChange(base, { body: {}, unsetSecrets: ["NOPE"], unsetSecretRefs: ["GONE"] });
    expect(merged.absent).toEqual({ secrets: ["NOPE"], secretRefs: ["GONE"] });
    expect(merged.body).toEqual({});
  });

  it("fieldsAtDefault finds the fields equal to their default, chained defaults too", () => {
    expect(
      [
        ...fieldsAtDefault({
          cpu: 1,
          cpu_limit: 2,
          queue_cpu: 1,
          queue_cpu_limit: 2,
          memory_mb: 512,
          memory_limit_mb: 600,
        }),
      ].sort(),
    ).toEqual(["cpu_limit", "queue_cpu", "queue_cpu_limit"]);
  });
});
