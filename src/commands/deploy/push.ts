import { type Command, Option } from "@commander-js/extra-typings";
import { ENGINES } from "../../image/engine/find.js";
import { type PushInput, runPush } from "../../operations/push.js";
import { examples, oneOf, size } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";
import { addCreateOption, addSecretOptions, addUnsetSecretOption } from "./body-options.js";
import {
  addReleaseOptions,
  dotenvReportOption,
  intervalOption,
  RELEASE_HELP,
  timeoutOption,
} from "./wait-options.js";

/** What is pushed, and where to: DIR, the deployment's name, a preview of it. */
const target = (command: Command) =>
  addCreateOption(
    command
      .argument(
        "[dir]",
        "the project directory to ship (default: the current one); none with --image or --image-archive",
      )
      .option(
        "--name <name>",
        "the deployment, by exact name: updated when it exists, created when not (default: the one DIR's project file remembers)",
      ),
    "NAME",
  )
    .option(
      "--preview [n]",
      "ship to NAME-pr-N, pull request N's preview (created when missing; NAME is not touched); N found in a pull request's CI run when not given",
    )
    .option(
      "--comment",
      "with --preview on GitHub Actions: create or update the pull request's comment about the preview (needs GITHUB_TOKEN)",
    )
    .option(
      "--agent-config-path <path>",
      "the agent configuration, relative to DIR (default: the first of agent.json, langgraph.json)",
    );

export default optionsAre<PushInput>()(
  defineCommand({
    configure: (command) =>
      addReleaseOptions(
        addUnsetSecretOption(addSecretOptions(target(command)))
          .addOption(
            new Option(
              "--max-size <size>",
              "refuse a gzipped tarball larger than this, e.g. 50MiB, 1GiB, 20MB (default 100MiB)",
            ).argParser(size),
          )
          .option(
            "--include-credentials",
            "pack files that usually hold credentials too (.env, .npmrc, *.pem, id_rsa, *.tfvars, ...: left out by default)",
          )
          .option(
            "--image <image>",
            "ship this image from the local docker or podman store (internal_container)",
          )
          .option(
            "--image-archive <file>",
            "ship a saved image (internal_container): a docker save / podman save tarball, or an OCI layout (directory or tar)",
          )
          .addOption(
            new Option(
              "--engine <engine>",
              "with --image: docker or podman (default: the first on PATH, docker first)",
            )
              .choices(ENGINES)
              .argParser(oneOf(ENGINES)),
          )
          .option(
            "--tag <tag>",
            "with an image: the tag to push under (default: the time and the image's short ID)",
          )
          .option(
            "--force",
            "push even when the active revision already runs this source (or image) with these settings",
          )
          .option(
            "--dry-run",
            "pack or read and check everything, show what would be created or patched; send nothing",
          )
          .option("--wait", "wait for the new revision (the default)")
          .option("--no-wait", "stop once the new revision has started")
          .addOption(timeoutOption())
          .addOption(intervalOption())
          .option("--logs", "stream the build log to stderr while waiting (the default on a terminal)")
          .option("--no-logs", "do not stream the build log (only the end of a failed one is shown)")
          .addOption(dotenvReportOption()),
      ).addHelpText(
        "after",
        `
For internal_source deployments: packs DIR as \`deploy upload\` does (.gitignore and the root's
.dockerignore honoured, .git/, node_modules/, credential files and cpctl's own project files
left out, reproducible bytes), finds the deployment by its exact name across every page or creates it (as
internal_source, with agent_config_path and the secrets given), uploads the tarball, patches
source_tarball_path in (with the secrets merged: the deployment's others stay) and waits for
the new revision, streaming its build log on a terminal. Everything local is checked first: a
missing directory or agent configuration, or a tarball over --max-size, is exit 2 before any
request.

Without --name, the name is the deployment DIR's own project file remembers (deployment: NAME
in its .cpctlrc.yaml; stderr says so), else asked on a terminal (exit 2 elsewhere). After a
push from a terminal to a name DIR does not remember, push offers to write it there (default
yes; never in CI, with --no-input, --yes or --dry-run). Before it creates NAME, push reads the tenant's names (every page): one that is a near
miss of NAME (Weather or weathr beside weather; never a difference only in digits, as
agent-1 and agent-2) is named, and on a terminal push asks whether to create NAME anyway
(default no); elsewhere it is exit 2 unless --create.

Nothing is sent when the active revision was built from the same tarball (its sha256, as the
server reports it), it is the deployment's latest revision (none newer failed or is still on
its way to replace it), and no secret or agent_config_path changes: "nothing to push", exit 0.
--force pushes anyway. Secrets named like the variables the platform sets itself (PORT,
LANGSMITH_API_KEY, POSTGRES_URI, ...) are left out, each with a warning.

Output: numbered steps on stderr; on stdout the result (-o json: {"deployment", "revision",
"created", "uploaded", "bytes", "sha256", "result", "elapsed_seconds", "url", "failure"}: failure
is {"stage", "message", "log_tail"} when the revision failed, else null; result is
deployed, failed, timed_out, interrupted, started with --no-wait, or unchanged). -o ndjson
streams one event a line as it happens: packed, found, created, uploaded, patched, status,
log, and last done with the result. Exit codes are those of \`deploy wait\`: 5 when the revision
fails (the end of its build log is shown), 6 on time-out, 130 on Ctrl-C (with the command that
resumes the wait).
${RELEASE_HELP}
A preview for every pull request: --preview N ships to the deployment NAME-pr-N instead of NAME,
created when missing as NAME would be (same source, agent_config_path, the secrets given) and
pushed to like any other; NAME itself is never read or changed. Without N, it is read from the
CI run: on GitHub Actions from the event (GITHUB_EVENT_PATH: pull_request.number) or a GITHUB_REF
of refs/pull/N/merge, on GitLab CI from CI_MERGE_REQUEST_IID; elsewhere it is exit 2. The result,
the ndjson done event, the GitHub step outputs and --dotenv-report carry preview_number beside
url. --comment (with --preview, on GitHub Actions, with GITHUB_TOKEN in the environment) then
creates or updates one comment on the pull request, found by a hidden marker per NAME, through
GITHUB_API_URL and GITHUB_REPOSITORY: the preview's URL, revision, status, verification and the
time; never a token or a secret value. A comment that cannot be posted (a fork's read-only
token, 403 or 404, no token, no network) is a warning: the exit code stays the deploy's.
\`deploy prune --previews-of NAME\` deletes previews once their pull request is closed.
With --image IMAGE or --image-archive FILE (no DIR), for internal_container deployments: the
deployment is found or created (as internal_container) the same way, a push token is asked for
(POST .../push-token), the image is pushed to REGISTRY_URL/NAME:TAG (NAME: the deployment's name
in lower case; TAG: --tag, or the time and the image's short ID), and image_uri is patched in as
REGISTRY_URL/NAME@sha256:... (the digest the registry stored), revision_source
internal_container. --image goes through the local docker, else podman (--engine picks): a login
as oauth2accesstoken with the token on stdin into a private temporary client config (your own
docker or podman config is never read or written), tag, push. --image-archive needs no engine:
a docker save / podman save tarball (its layers gzipped as docker push does), or an OCI image
layout, a directory or a tar (pushed byte for byte), gzipped or not; blobs the registry has are
not sent again (every digest checked first, --dry-run too; a directory's links are refused). The
token never appears in output, --debug or argv. docker or podman ends with cpctl, kill -9
included; what a killed push left in the temporary directory goes at the next image push. A
token the registry refuses
mid-push is replaced once (then exit 3); a failed upload is retried; the deployment is patched
only once the registry holds the whole image. An archive whose digest the active revision runs
already sends nothing (--force pushes). -o ndjson's events are then image, found or created,
pushed, patched, status, done; the result adds image_uri.${examples(
          "cpctl deploy push ./agent --name my-agent                  # create or update, upload, wait",
          "cpctl deploy push ./agent --name my-agent --dry-run        # what would be packed and sent",
          "cpctl deploy push ./agent --name my-agent --secret OPENAI_API_KEY --no-wait",
          "cpctl deploy push ./agent --name my-agent --verify --rollback-on-failure",
          "cpctl deploy push ./agent --name my-agent --preview 7 -o json | jq -r .url  # to my-agent-pr-7",
          "CI_MERGE_REQUEST_IID=7 cpctl deploy push ./agent --name my-agent --preview  # N from the CI run",
          "cpctl deploy push ./agent --name my-agent --preview 7 --comment --verify  # on GitHub Actions: and comment",
          "cpctl deploy push ./agent --name my-agent -o ndjson | jq -c 'select(.event == \"status\")'",
          "cpctl deploy push --image my-app:latest --name my-container  # through docker (or podman)",
          "cpctl deploy push --image-archive image.tar --name my-container  # docker save, podman save, an OCI layout",
        )}`,
      ),
    run: (ctx, [dir], options) => runPush(ctx, dir, options),
  }),
);
