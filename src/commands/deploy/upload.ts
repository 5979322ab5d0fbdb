import { Option } from "@commander-js/extra-typings";
import { DEFAULT_MAX_UPLOAD_BYTES } from "../../model/enums.js";
import { runUpload, type UploadInput } from "../../operations/upload.js";
import { CREDENTIAL_FILES, EDITOR_COPIES } from "../../upload/credentials.js";
import { examples, size } from "../parsers.js";
import { defineCommand, optionsAre } from "../spec.js";
import { addWaitOptions, WAIT_HELP } from "./wait-options.js";

export default optionsAre<UploadInput>()(
  defineCommand({
    configure: (command) =>
      addWaitOptions(
        command
          .argument("<deployment>", "deployment ID, or its exact name (an internal_source deployment)")
          .argument(
            "<source>",
            "a directory (packed for you, honouring .gitignore and .dockerignore) or a .tar.gz/.tgz file (sent as it is)",
          )
          .addOption(
            new Option(
              "--max-size <size>",
              "refuse a gzipped tarball larger than this, e.g. 50MiB, 1GiB, 20MB",
            )
              .default(DEFAULT_MAX_UPLOAD_BYTES, "100MiB")
              .argParser(size),
          )
          .option(
            "--patch",
            "then set source_revision_config.source_tarball_path to the upload: starts a new revision",
          )
          .option(
            "--include-credentials",
            "pack files that usually hold credentials too (.env, .npmrc, *.pem, id_rsa, *.tfvars, ...: left out by default)",
          )
          .option("--dry-run", "pack and check the source and the deployment; upload nothing"),
        "with --patch: wait for the new revision (as `deploy wait`)",
      ).addHelpText(
        "after",
        `
A directory is packed into a gzipped tarball of its regular files: .gitignore files (the
root's and nested ones) and the root's .dockerignore (as docker reads it: anchored patterns,
! lines) are honoured, .git/ and node_modules/ are always left out (and cpctl's own project
files at the root: .cpctlrc, .cpctlrc.yaml, .cpctlrc.yml, .cpctlrc.json, cpctl.config.mjs), and
symbolic links are skipped with a warning; a file is read without following a link, and only
if it is still the file listed (one replaced while packing stops it). Files that usually hold
credentials are left out, with a warning naming them, unless --include-credentials (names
matched in any case, at any depth):
${wrapped(CREDENTIAL_FILES)}
So are their copies (${EDITOR_COPIES.backupSuffixes.map((suffix) => `NAME${suffix}`).join(", ")},
each also as an editor's swap, undo or auto-save file: .NAME.swp, .NAME.un~, .NAME.kate-swp,
#NAME#, .#NAME) and a hard link to any of them under another name.
A name with a line break, or that is not UTF-8, is skipped with a warning. Modes are
normalised to 644/755 and every mtime is the same fixed date, so the same files give the
same tarball (gzip members of 256 KiB compressed on every core, which every gzip reader reads
as one stream).

The size limit is checked before anything is sent. Then the command asks for an upload URL
(POST .../upload-url), PUTs the tarball to it, and prints the object path (-o json:
{"deployment_id","object_path","bytes"}). The upload URL itself is never printed: it grants
write access. With --patch it then patches the path in and prints the deployment, as
\`deploy patch\` does.${WAIT_HELP}${examples(
          "cpctl deploy upload my-agent ./agent --patch --wait",
          "cpctl deploy upload my-agent build/agent.tgz",
          'cpctl deploy patch my-agent --source-tarball-path "$(cpctl deploy upload my-agent .)"',
          "cpctl deploy upload my-agent . --dry-run      # list what would be packed",
        )}`,
      ),
    run: (ctx, [ref, path], options) => runUpload(ctx, ref, path, options),
  }),
);

/** A list as indented lines of at most 90 columns. */
function wrapped(items: readonly string[], width = 90): string {
  const lines: string[] = [];
  let line = " ";
  for (const item of items) {
    if (line.length + item.length + 2 > width) {
      lines.push(line.trimEnd());
      line = " ";
    }
    line += ` ${item},`;
  }
  lines.push(line.replace(/,$/, "."));
  return lines.join("\n");
}
