// The body flags of create, patch, apply and diff (and the secret flags push and `cpctl
// secrets` share with them). Each helper adds its flags with commander's own calls, so that
// the options a command parses are inferred from the flags themselves; the field flags, added
// in a loop from the field table, are typed by that same table (src/manifest/fields.ts).
import { type Command, Option, type OptionValues } from "@commander-js/extra-typings";
import type { BodyKind } from "../../manifest/build.js";
import { FIELD_FLAGS, type FieldFlagValues } from "../../manifest/fields.js";
import { collect, finiteNumber, idOrPrefix, integerIn, oneOf } from "../parsers.js";

const anyInteger = integerIn(Number.MIN_SAFE_INTEGER);

/** Adds the field flags of `kind` from the field table, which types what they parse to. */
export function addFieldOptions<
  A extends unknown[],
  O extends OptionValues,
  G extends OptionValues,
  K extends BodyKind,
>(command: Command<A, O, G>, kind: K): Command<A, O & FieldFlagValues<K>, G> {
  for (const field of FIELD_FLAGS) {
    if (!field.on.includes(kind)) continue;
    const placeholder =
      field.kind === "integer" || field.kind === "number"
        ? "<n>"
        : field.kind === "uuid"
          ? "<uuid>"
          : "<value>";
    if (field.kind === "boolean") {
      command.option(`--${field.flag}`, field.description);
      command.option(`--no-${field.flag}`, `set ${field.path.at(-1)} to false`);
      continue;
    }
    const option = new Option(`--${field.flag} ${placeholder}`, field.description);
    if (field.kind === "enum") option.choices(field.values as string[]).argParser(oneOf(field.values ?? []));
    // An ID prefix is resolved by the command (operations/resolve.ts, resolveIdFlags).
    if (field.kind === "uuid") option.argParser(idOrPrefix);
    if (field.kind === "integer") option.argParser(anyInteger);
    if (field.kind === "number") option.argParser(finiteNumber);
    command.addOption(option as Option);
  }
  // The loop and FieldFlagValues read the same table: the one cast of these helpers.
  return command as unknown as Command<A, O & FieldFlagValues<K>, G>;
}

export function addFileOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  required = false,
) {
  const option = new Option(
    "-f, --file <file>",
    "deployment file, YAML or JSON (- for stdin); flags override its values",
  );
  if (required) option.makeOptionMandatory();
  return command.addOption(option);
}

/** --allow-empty-secrets: with the secret flags, and on `cpctl secrets set` and `import`. */
export function addAllowEmptySecrets<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command.option(
    "--allow-empty-secrets",
    "send a secret whose value is empty (refused otherwise: CI systems turn a missing secret into '')",
  );
}

/** --secret and --secrets-file. */
function addSecretSources<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command
    .option(
      "--secret <name[=value]>",
      "secret from the environment variable NAME, or NAME=VALUE (repeatable)",
      collect,
    )
    .option("--secrets-file <file>", "secrets from a dotenv file (NAME=VALUE lines; - for stdin)");
}

/** --secret, --secrets-file and --allow-empty-secrets (manifest/build.ts's SecretFlags), as push takes them. */
export function addSecretOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return addAllowEmptySecrets(addSecretSources(command));
}

/** --set, the secret flags and --secret-ref (external_container's): create's, patch's, apply's, diff's. */
export function addExtraBodyOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  const withSet = command.option(
    "--set <path=value>",
    "any field by path, typed by the schema (repeatable), e.g. source_config.resource_spec.queue_cpu=0.5",
    collect,
  );
  return addAllowEmptySecrets(
    addSecretSources(withSet).option(
      "--secret-ref <name=secret:key>",
      "environment variable from an existing orchestrator secret (repeatable; external_container)",
      collect,
    ),
  );
}

/** --unset-secret: a patch's, and push's. */
export function addUnsetSecretOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command.option("--unset-secret <name>", "remove this secret (repeatable); the others stay", collect);
}

/** How a patch treats what it does not name (CLI.md "Changing part of a deployment"). */
export function addMergeOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return addUnsetSecretOption(command)
    .option(
      "--unset-secret-ref <name>",
      "remove this secret reference (repeatable); the others stay",
      collect,
    )
    .option("--replace-secrets", "the secrets given are the whole set: every other secret is removed")
    .option("--replace-secret-refs", "the secret references given are the whole set")
    .option(
      "--replace-resource-spec",
      "the resource fields given are the whole resource_spec: every other field is removed",
    );
}

/** --create, of push and apply: a new name beside a near miss of it (operations/near-miss.ts). */
export function addCreateOption<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  what: string,
) {
  return command.option(
    "--create",
    `create ${what} when missing even if another deployment's name is a near miss of it (case, or one character; not digits): asked on a terminal, else exit 2`,
  );
}
