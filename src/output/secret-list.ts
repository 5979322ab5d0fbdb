// How `cpctl secrets list` shows a deployment's secrets: one row a name, its value (a secret's,
// masked unless --show-secrets; the deployment given has been through Printer.shown), and
// whether it is a secret or a reference to an orchestrator secret (`secret_references`).
// The JSON shape is a contract (docs/output.md): every row has every key, null where it does
// not apply, so that `jq` reads each the same way.
import type { DeploymentT } from "../model/responses.js";
import type { View } from "./printer.js";

export interface SecretRow {
  name: string;
  source: "secret" | "reference";
  /** A secret's value (`****` unless --show-secrets; null when the server gave none); null for a reference. */
  value: string | null;
  /** A reference's orchestrator secret and key; null for a secret. */
  secret_name: string | null;
  secret_key: string | null;
}

/** The secrets, then the references, each in the deployment's order. */
export function secretRows(deployment: Pick<DeploymentT, "secrets" | "secret_references">): SecretRow[] {
  return [
    ...(deployment.secrets ?? []).map(
      (secret): SecretRow => ({
        name: secret.name,
        source: "secret",
        value: secret.value ?? null,
        secret_name: null,
        secret_key: null,
      }),
    ),
    ...(deployment.secret_references ?? []).map(
      (reference): SecretRow => ({
        name: reference.name,
        source: "reference",
        value: null,
        secret_name: reference.secret_name,
        secret_key: reference.secret_key,
      }),
    ),
  ];
}

/**
 * NAME, SOURCE, VALUE: a reference's VALUE is where its value comes from, `SECRET_NAME:KEY`
 * (no secret itself). `-o id` prints the names.
 */
export const secretView: View<SecretRow> = {
  id: (row) => row.name,
  columns: [
    { header: "NAME", value: (row) => row.name },
    { header: "SOURCE", value: (row) => row.source },
    {
      header: "VALUE",
      value: (row) => (row.source === "reference" ? `${row.secret_name}:${row.secret_key}` : row.value),
    },
  ],
  empty: "No secrets.",
};
