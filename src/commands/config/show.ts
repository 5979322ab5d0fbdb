import type { View } from "../../output/printer.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { maskShownCredentials, SHOWN_KEYS, type ShownValue, shownValue } from "./shared.js";

interface Row extends ShownValue {
  key: string;
}

const view: View<Row> = {
  id: (row) => row.key,
  columns: [
    { header: "KEY", value: (row) => row.key },
    { header: "VALUE", value: (row) => row.value },
    { header: "SOURCE", value: (row) => row.source },
  ],
};

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `
Shows the value of every setting for this command line, and where it comes from:
flag > environment > project config > user config > built-in default. Credentials are
masked (****) unless --show-secrets is given.${examples(
        "cpctl config show",
        "cpctl config show --profile prod",
        "cpctl config show -o json | jq -r .baseUrl.source",
      )}`,
    ),
  run: async (ctx) => {
    const settings = await ctx.settings();
    const printer = await ctx.printer();
    const showSecrets = Boolean(ctx.flags.showSecrets);
    const rows: Row[] = SHOWN_KEYS.map((key) => ({ key, ...shownValue(settings, key, showSecrets) }));
    maskShownCredentials(ctx, settings, SHOWN_KEYS);
    if (printer.options.format === "table") return printer.list(rows, view);
    await printer.value(Object.fromEntries(rows.map(({ key, value, source }) => [key, { value, source }])));
  },
});
