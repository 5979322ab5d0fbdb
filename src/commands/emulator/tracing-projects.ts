// `cpctl emulator tracing-projects`: the tracing projects of your tenant (creating a
// deployment records one of the same name).
import { tracingProjects } from "../../api/emulator-controls.js";
import type { View } from "../../output/printer.js";
import { examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { emulatorTarget, TENANT_CONTROL_HELP } from "./shared.js";

const projectView: View<{ id: string; name: string; deployment_id: string; created_at: string }> = {
  id: (project) => project.id,
  columns: [
    { header: "ID", value: (project) => project.id, kind: "id" },
    { header: "NAME", value: (project) => project.name },
    { header: "DEPLOYMENT", value: (project) => project.deployment_id, kind: "id" },
    { header: "CREATED", value: (project) => project.created_at, kind: "time" },
  ],
  tableOrder: ["NAME", "ID", "DEPLOYMENT", "CREATED"],
  dropOrder: ["CREATED", "DEPLOYMENT"],
  empty: "No tracing projects.",
};

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `
Creating a deployment records a tracing project of its name; deleting the deployment with
?delete_tracing_project=true deletes it, and otherwise leaves it.
${TENANT_CONTROL_HELP}${examples("cpctl emulator tracing-projects", "cpctl emulator tracing-projects -o json")}`,
    ),
  run: async (ctx) => {
    await (await ctx.printer()).list(await tracingProjects(await emulatorTarget(ctx)), projectView);
  },
});
