import type { View } from "../../output/printer.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { maskShownCredentials, plainPrinter, SHOWN_KEYS, type ShownValue, shownValue } from "./shared.js";

interface Row extends ShownValue {
  key: string;
}

const view: View<Row> = {
  id: (row) => row.key,
  columns: [
    { header: "KEY", value: (row) => row.key },
    { header: "VALUE", value: (row) => (row.unset ? `(not set: \${env:${row.unset}})` : row.value) },
    { header: "SOURCE", value: (row) => row.source },
  ],
};

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `
Shows the value of every setting for this command line, and where it comes from:
flag > environment > project config > user config > built-in default. The first row is the
profile in use and what chose it (--profile, CPCTL_PROFILE, the project file's or your
defaultProfile). A setting a file gives as \${env:NAME} with NAME not set shows as not set,
with the variable's name: only the commands that need it stop. Credentials are masked (****)
unless --show-secrets is given. The last row, deployment, is the one the working directory's
own project file remembers for deploy push (used when --name is absent). -o json: {"KEY": {"value", "source"[, "unset"]}, ...}.${examples(
        "cpctl config show",
        "cpctl config show --profile prod",
        "cpctl config show -o json | jq -r .baseUrl.source",
      )}`,
    ),
  run: async (ctx) => {
    const settings = await ctx.settings();
    const printer = await plainPrinter(ctx, settings);
    const showSecrets = Boolean(ctx.flags.showSecrets);
    const rows: Row[] = SHOWN_KEYS.map((key) => ({ key, ...shownValue(settings, key, showSecrets) }));
    maskShownCredentials(ctx, settings, SHOWN_KEYS);
    if (printer.options.format === "table") return printer.list(rows, view);
    await printer.value(
      Object.fromEntries(
        rows.map(({ key, value, source, unset }) => [
          key,
          unset ? { value, source, unset } : { value, source },
        ]),
      ),
    );
  },
});
