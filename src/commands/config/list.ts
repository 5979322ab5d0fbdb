import {
  chooseProfile,
  LOCAL_BASE_URL,
  type ProfileSummary,
  summarizeProfiles,
} from "../../config/profiles.js";
import type { View } from "../../output/printer.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { configState, plainPrinter } from "./shared.js";

const view: View<ProfileSummary> = {
  id: (profile) => profile.name,
  columns: [
    { header: "", value: (profile) => (profile.selected ? "*" : "") },
    { header: "NAME", value: (profile) => profile.name },
    { header: "BASE URL", value: (profile) => profile.baseUrl },
    { header: "DEFAULT", value: (profile) => (profile.default ? "yes" : "") },
    { header: "CONFIRM", value: (profile) => (profile.confirm ? "yes" : "") },
    { header: "SOURCES", value: (profile) => profile.sources.join(", ") },
  ],
  dropOrder: ["SOURCES", "CONFIRM"],
};

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `
Lists the profiles of the user and project config files and the built-in 'local' profile
(the emulator at ${LOCAL_BASE_URL}). '*' marks the profile this command line uses
(--profile, else CPCTL_PROFILE, else defaultProfile); DEFAULT marks defaultProfile.${examples(
        "cpctl config list",
        "cpctl config list -o json | jq -r '.[] | select(.selected) | .name'",
      )}`,
    ),
  run: async (ctx) => {
    const state = await configState(ctx);
    if (!state.files) throw state.error!;
    let choice = { name: state.settings?.profile ?? null, origin: state.settings?.profileOrigin ?? null };
    if (state.error) {
      // An unknown profile, a bad value or an unset variable: list anyway; it is how one finds the fix.
      ctx.log.warn(state.error.message);
      choice = chooseProfile(state.files, ctx.flags.profile, ctx.env, true);
    }
    const profiles = summarizeProfiles(state.files, choice, ctx.env);
    const printer = await plainPrinter(ctx, state.settings);
    await printer.list(profiles, view);
  },
});
