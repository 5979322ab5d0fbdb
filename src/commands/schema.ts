import { toJSONSchema } from "zod/mini";
import { DeploymentCreateRequest } from "../model/schemas.js";
import { jsonText } from "../output/encode.js";
import { writeText } from "../output/safe-text.js";
import { examples } from "./parsers.js";
import { defineCommand } from "./spec.js";

export default defineCommand({
  configure: (command) =>
    command.addHelpText(
      "after",
      `\nThe schema of deployment files (-f FILE): the create request body of the API. Editors use it
for completion and checks; see docs/deployments.md ("Deployment files").${examples("cpctl schema > cpctl.schema.json")}`,
    ),
  run: async (ctx) => {
    const schema = toJSONSchema(DeploymentCreateRequest, { target: "draft-2020-12", io: "input" }) as Record<
      string,
      unknown
    >;
    const properties = schema.properties as Record<string, unknown>;
    const document = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: "cpctl deployment file",
      description:
        "A deployment create request (control plane API 0.1.0, POST /v2/deployments). Strings may use ${env:NAME}. Cross-field rules (which source allows which field, build_on_push with tags, cpu bounds) are checked by cpctl.",
      ...schema,
      // Editors put the schema's address in the file itself; cpctl ignores the key.
      properties: { $schema: { type: "string" }, ...properties },
    };
    writeText(ctx.io.stdout, `${jsonText(document, 2)}\n`);
  },
});
