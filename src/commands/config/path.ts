import { PROJECT_FILE_NAMES } from "../../config/paths.js";
import type { View } from "../../output/printer.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { configState, plainPrinter } from "./shared.js";

interface Row {
  scope: "user" | "project";
  path: string | null;
  present: boolean;
}

const view: View<Row> = {
  id: (row) => row.path ?? "",
  columns: [
    { header: "SCOPE", value: (row) => row.scope },
    { header: "PATH", value: (row) => row.path },
    { header: "STATE", value: (row) => (row.present ? "present" : "absent") },
  ],
};

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `
The user file is $XDG_CONFIG_HOME/cpctl/config.yaml (~/.config/cpctl/config.yaml by default).
The project file is the nearest of ${PROJECT_FILE_NAMES.join(", ")} (with a "cpctl" field)
from the working directory upward, up to the home directory.${examples("cpctl config path", '"$EDITOR" "$(cpctl config path -o id | head -1)"')}`,
    ),
  run: async (ctx) => {
    const state = await configState(ctx);
    // A broken file is what one looks for the path to fix: say what is wrong, still answer.
    if (state.error) ctx.log.warn(state.error.message);
    const { userPath, userPresent, projectPath } = state.locations;
    const rows: Row[] = [
      { scope: "user", path: userPath, present: userPresent },
      { scope: "project", path: projectPath, present: projectPath !== null },
    ];
    const printer = await plainPrinter(ctx, state.settings);
    if (printer.options.format === "id") {
      for (const row of rows) if (row.path) printer.line(row.path);
      return;
    }
    if (printer.options.format === "table") return printer.list(rows, view);
    await printer.value({
      user: { path: userPath, present: userPresent },
      project: { path: projectPath, present: projectPath !== null },
    });
  },
});
