// `cpctl config use PROFILE`: the user file's defaultProfile, the profile every command uses
// when neither --profile nor CPCTL_PROFILE nor a project file's defaultProfile says otherwise.
// Nothing else switches it (config set refuses to), and it says so, and what still wins over it.
import { profileNames } from "../../config/profiles.js";
import { setDefaultProfile } from "../../config/write.js";
import { UsageError } from "../../errors.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { configState, plainPrinter } from "./shared.js";

export default defineCommand({
  configure: (command) =>
    command.argument("<profile>", "a profile of the config files, or the built-in local").addHelpText(
      "after",
      `
Writes defaultProfile into the user config file ($XDG_CONFIG_HOME/cpctl/config.yaml),
keeping the rest of the file, and says so. From then on every command uses that profile,
in every terminal, unless --profile, CPCTL_PROFILE or a project file's defaultProfile
chooses another (it says so when one does, here and now). \`cpctl config show\` says which
profile a command line uses and why.${examples("cpctl config use prod", "cpctl config use local")}`,
    ),
  run: async (ctx, [profile]) => {
    const state = await configState(ctx);
    if (!state.files) throw state.error!;
    const files = state.files;
    const known = profileNames(files);
    if (!known.includes(profile)) {
      throw new UsageError(`unknown profile '${profile}'; known profiles: ${known.join(", ")}`).withHint(
        `Create it first, e.g. \`cpctl config set baseUrl URL --profile ${profile}\`.`,
      );
    }
    const written = await setDefaultProfile(files.userPath, profile);
    ctx.log.info(
      written.changed
        ? `the default profile is now ${profile} (defaultProfile in ${written.path}${written.created ? ", created, mode 0600" : ""})`
        : `the default profile already is ${profile} (defaultProfile in ${written.path})`,
    );
    for (const winner of [
      ctx.flags.profile !== undefined && ctx.flags.profile !== profile
        ? `--profile ${ctx.flags.profile}`
        : "",
      ctx.env.CPCTL_PROFILE && ctx.env.CPCTL_PROFILE !== profile
        ? `CPCTL_PROFILE=${ctx.env.CPCTL_PROFILE} (set in this shell; \`unset CPCTL_PROFILE\` to use the default)`
        : "",
      files.project?.defaultProfile && files.project.defaultProfile !== profile
        ? `the project file's defaultProfile ${files.project.defaultProfile} (${files.project.path}), in this directory`
        : "",
    ])
      if (winner) ctx.log.warn(`${winner} wins over it`);
    const printer = await plainPrinter(ctx);
    if (printer.options.format !== "table" && printer.options.format !== "id")
      await printer.value({
        file: written.path,
        default_profile: profile,
        changed: written.changed,
        created: written.created,
      });
  },
});
