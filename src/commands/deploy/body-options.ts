// The body flags of create, patch, apply and diff, generated from the field table so that a
// flag, its parser and its path in the body are written once (src/manifest/fields.ts).
import { type Command, Option, type OptionValues } from "@commander-js/extra-typings";
import type { BodyOptions } from "../../manifest/build.js";
import { FIELD_FLAGS } from "../../manifest/fields.js";
import type { MergeFlags } from "../../manifest/patch.js";
import { collect, finiteNumber, idOrPrefix, integerIn, oneOf } from "../parsers.js";

const anyInteger = integerIn(Number.MIN_SAFE_INTEGER);

// biome-ignore lint/suspicious/noExplicitAny: any typed commander command
export type AnyCommand = Command<any, any, any>;

/**
 * The command with these options added to what it parses. Commander's typings follow
 * `.option()` calls written out; these helpers add options in a loop or on the caller's
 * behalf, so they say what they add here, once, and the commands' handlers get typed options.
 */
export type WithOptions<C, O extends OptionValues> =
  C extends Command<infer A, infer P, infer G> ? Command<A, P & O, G> : never;

/** The one place the helpers' promise is taken on trust: they added exactly `O`. */
export function added<C extends AnyCommand, O extends OptionValues>(command: C): WithOptions<C, O> {
  return command as unknown as WithOptions<C, O>;
}

/** What the field flags parse to: read back by name (manifest/build.ts), typed by the field table. */
type FieldOptionValues = { [attribute: string]: unknown };

/** Adds the field flags; they are read back by name (see manifest/build.ts), not by inferred type. */
export function addFieldOptions<C extends AnyCommand>(
  command: C,
  kind: "create" | "patch",
): WithOptions<C, FieldOptionValues> {
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
  return added<C, FieldOptionValues>(command);
}

export function addFileOption<C extends AnyCommand>(
  command: C,
  required = false,
): WithOptions<C, { file?: string }> {
  const option = new Option(
    "-f, --file <file>",
    "deployment file, YAML or JSON (- for stdin); flags override its values",
  );
  if (required) option.makeOptionMandatory();
  command.addOption(option as Option);
  return added<C, { file?: string }>(command);
}

/** --allow-empty-secrets's description (also on `cpctl secrets set` and `import`). */
export const ALLOW_EMPTY_SECRETS =
  "send a secret whose value is empty (refused otherwise: CI systems turn a missing secret into '')";

/** --set and the secret flags. */
export function addExtraBodyOptions<C extends AnyCommand>(
  command: C,
): WithOptions<C, Pick<BodyOptions, "set" | "secret" | "secretsFile" | "secretRef" | "allowEmptySecrets">> {
  command
    .option(
      "--set <path=value>",
      "any field by path, typed by the schema (repeatable), e.g. source_config.resource_spec.queue_cpu=0.5",
      collect,
    )
    .option(
      "--secret <name[=value]>",
      "secret from the environment variable NAME, or NAME=VALUE (repeatable)",
      collect,
    )
    .option("--secrets-file <file>", "secrets from a dotenv file (NAME=VALUE lines; - for stdin)")
    .option(
      "--secret-ref <name=secret:key>",
      "environment variable from an existing orchestrator secret (repeatable; external_container)",
      collect,
    )
    .option("--allow-empty-secrets", ALLOW_EMPTY_SECRETS);
  return added<C, Pick<BodyOptions, "set" | "secret" | "secretsFile" | "secretRef" | "allowEmptySecrets">>(
    command,
  );
}

/** How a patch treats what it does not name (CLI.md "Changing part of a deployment"). */
export function addMergeOptions<C extends AnyCommand>(command: C): WithOptions<C, MergeOptions> {
  command
    .option("--unset-secret <name>", "remove this secret (repeatable); the others stay", collect)
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
  return added<C, MergeOptions>(command);
}

/** The options addMergeOptions adds. */
export type MergeOptions = MergeFlags;
