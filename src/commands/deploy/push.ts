import { Option } from "@commander-js/extra-typings";
import { runPush } from "../../operations/push.js";
import { DEFAULT_MAX_UPLOAD_BYTES } from "../../upload/size.js";
import { collect, examples, size } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { dotenvReportOption, intervalOption, timeoutOption } from "./wait-options.js";

export default defineCommand({
  configure: (command) =>
    command
      .argument("[dir]", "the project directory to ship (default: the current one)", ".")
      .option("--name <name>", "the deployment, by exact name: updated when it exists, created when not")
      .option(
        "--agent-config-path <path>",
        "the agent configuration, relative to DIR (default: the first of agent.json, langgraph.json)",
      )
      .option(
        "--secret <name[=value]>",
        "secret from the environment variable NAME, or NAME=VALUE (repeatable); the others stay",
        collect,
      )
      .option("--secrets-file <file>", "secrets from a dotenv file (NAME=VALUE lines); the others stay")
      .option("--unset-secret <name>", "remove this secret (repeatable); the others stay", collect)
      .option(
        "--allow-empty-secrets",
        "send a secret whose value is empty (refused otherwise: CI systems turn a missing secret into '')",
      )
      .addOption(
        new Option("--max-size <size>", "refuse a gzipped tarball larger than this, e.g. 50MiB, 1GiB, 20MB")
          .default(DEFAULT_MAX_UPLOAD_BYTES, "100MiB")
          .argParser(size),
      )
      .option(
        "--include-credentials",
        "pack files that usually hold credentials too (.env, .npmrc, *.pem, id_rsa, *.tfvars, ...: left out by default)",
      )
      .option("--force", "push even when the active revision already runs this source with these settings")
      .option("--dry-run", "pack and check everything, show what would be created or patched; send nothing")
      .option("--wait", "wait for the new revision (the default)")
      .option("--no-wait", "stop once the new revision has started")
      .addOption(timeoutOption())
      .addOption(intervalOption())
      .option("--logs", "stream the build log to stderr while waiting (the default on a terminal)")
      .option("--no-logs", "do not stream the build log (only the end of a failed one is shown)")
      .addOption(dotenvReportOption())
      .addHelpText(
        "after",
        `
For internal_source deployments: packs DIR as \`deploy upload\` does (.gitignore and the root's
.dockerignore honoured, .git/ and node_modules/ and credential files left out, reproducible
bytes), finds the deployment by its exact name across every page or creates it (as
internal_source, with agent_config_path and the secrets given), uploads the tarball, patches
source_tarball_path in (with the secrets merged: the deployment's others stay) and waits for
the new revision, streaming its build log on a terminal. Everything local is checked first: a
missing directory or agent configuration, or a tarball over --max-size, is exit 2 before any
request.

Nothing is sent when the active revision was built from the same tarball (its sha256, as the
server reports it) and no secret or agent_config_path changes: "nothing to push", exit 0.
--force pushes anyway. Secrets named like the variables the platform sets itself (PORT,
LANGSMITH_API_KEY, POSTGRES_URI, ...) are left out, each with a warning.

Output: numbered steps on stderr; on stdout the result (-o json: {"deployment", "revision",
"created", "uploaded", "bytes", "sha256", "result", "elapsed_seconds", "url"}; result is
deployed, failed, timed_out, interrupted, started with --no-wait, or unchanged). -o ndjson
streams one event a line as it happens: packed, found, created, uploaded, patched, status,
log, and last done with the result. Exit codes are those of \`deploy wait\`: 5 when the revision
fails (the end of its build log is shown), 6 on time-out, 130 on Ctrl-C (with the command that
resumes the wait).${examples(
          "cpctl deploy push ./agent --name my-agent                  # create or update, upload, wait",
          "cpctl deploy push ./agent --name my-agent --dry-run        # what would be packed and sent",
          "cpctl deploy push ./agent --name my-agent --secret OPENAI_API_KEY --no-wait",
          "cpctl deploy push ./agent --name my-agent -o ndjson | jq -c 'select(.event == \"status\")'",
        )}`,
      ),
  run: (ctx, [dir], options) => runPush(ctx, dir, options),
});
