import { Argument } from "@commander-js/extra-typings";
import { completes } from "../../completion/values.js";
import { describeChoice } from "../../config/profiles.js";
import { requireSet } from "../../config/settings.js";
import { OperationError } from "../../errors.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { checkShownKey, maskShownCredentials, SHOWN_KEYS, shownValue } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    command
      .addArgument(completes(new Argument("<key>", `one of ${SHOWN_KEYS.join(", ")}`), SHOWN_KEYS))
      .addHelpText(
        "after",
        `
Prints the value the next command would use (flags, environment, the profile's files and
defaults all apply), alone on a line for scripts. Credentials print as **** unless
--show-secrets is given. A key with no value prints nothing and exits 1.${examples(
          "cpctl config get baseUrl",
          "cpctl config get baseUrl --profile prod",
          'curl -H "X-Api-Key: $(cpctl config get apiKey --show-secrets)" "$(cpctl config get baseUrl)/v2/listeners"',
        )}`,
      ),
  run: async (ctx, [name]) => {
    const key = checkShownKey(name);
    const settings = await ctx.settings();
    if (key !== "profile" && key !== "deployment") requireSet(settings, [key]);
    const shown = shownValue(settings, key, Boolean(ctx.flags.showSecrets));
    if (shown.value === null) {
      const choice = describeChoice({ name: settings.profile, origin: settings.profileOrigin ?? null });
      throw new OperationError(
        `${key} is not set (${choice}); \`cpctl config show\` shows every setting`,
        "not_set",
      );
    }
    const printer = await ctx.printer();
    maskShownCredentials(ctx, settings, [key]);
    const { format } = printer.options;
    if (format === "table" || format === "id") return printer.line(String(shown.value));
    await printer.value({ key, ...shown });
  },
});
