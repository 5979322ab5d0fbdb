// What `cpctl --help` and every command's help say beyond commander's own rendering: the
// root lists every command under its heading from the registry alone (no command module is
// loaded), then the environment, examples and exit codes.
import { Command } from "@commander-js/extra-typings";
import { COMMANDS, type CommandEntry, GROUPS } from "./commands/registry.js";

/** After each command's own help text and examples. */
export const GLOBAL_OPTIONS_HINT =
  "\nGlobal options (-o/--output, --json, --profile, --base-url, --no-input, -y, --debug, ...): see `cpctl --help`.";

/** The heading each command is listed under in `cpctl --help`. */
export function helpHeading(entry: CommandEntry): string {
  const group = GROUPS.find((g) => entry.path.length === 2 && g.name === entry.path[0]);
  if (group) return group.heading;
  return entry.path[0] === "emulator" ? "Local control plane" : "Setup";
}

const HEADING_ORDER = ["Deployments", "Discovery", "Setup", "Local control plane"];

/**
 * `cpctl --help` lists every command by its full name under its heading, from the registry
 * alone (no command module is loaded). These commands exist only to be listed. (The root's
 * help configuration is its own: commands added with addCommand do not inherit it.)
 */
export function rootHelpCommands(): Command[] {
  const listed = COMMANDS.map((entry) =>
    new Command(entry.path.join(" ")).description(entry.summary).helpGroup(`${helpHeading(entry)}:`),
  );
  const rank = (command: Command) => HEADING_ORDER.indexOf(command.helpGroup().slice(0, -1));
  // A stable sort: the registry's order within each heading.
  return listed.sort((a, b) => rank(a) - rank(b));
}

export function rootHelpFooter(): string {
  return [
    "",
    "Environment:",
    "  CPCTL_API_KEY                 API key, sent as X-Api-Key (no flag: keep keys out of argv)",
    "  CPCTL_BEARER_TOKEN            bearer token, sent as Authorization: Bearer (no flag)",
    "  CPCTL_BASE_URL, CPCTL_PROFILE, CPCTL_TENANT_ID, CPCTL_OUTPUT",
    "                                as --base-url, --profile, --tenant-id, --output",
    "  CPCTL_TENANT_HEADER           header for the tenant ID (default X-Tenant-Id; not one",
    "                                HTTP or cpctl sets, e.g. Authorization or Host)",
    "  CPCTL_DEBUG=1                 as --debug",
    "  NO_COLOR, TERM=dumb           as --no-color",
    "  CI                            as --no-input; also no spinner",
    "Precedence: flag > environment > project config > user config > default.",
    "A project file's baseUrl gets none of your credentials unless your user config trusts",
    "the host (trustedHosts); its cpctl.config.mjs runs only in trustedDirectories.",
    "Control characters from a server or a file show as escapes (\\x1b) in table and text",
    "output; json and yaml keep the exact value, escaped.",
    "Read limits: -f FILE (or stdin) and --secrets-file 4 MiB each, --api-key-file 8 KiB;",
    "beyond them exit 2. SIGTERM, like Ctrl-C, ends a run at once (130), a read included.",
    "",
    "Examples:",
    "  cpctl emulator --port 8124 &                      # a local control plane",
    "  export CPCTL_BASE_URL=http://127.0.0.1:8124 CPCTL_API_KEY=dev",
    "  cpctl deploy create -f deployment.yaml --wait",
    "  cpctl deploy list -o json | jq '.[].name'",
    "",
    "Exit codes: 0 ok, 1 failure, 2 usage or validation, 3 auth refused, 4 not found,",
    "            5 revision failed, 6 wait timed out, 130 interrupted.",
    "Run `cpctl <command> --help` (e.g. `cpctl deploy create --help`) for its flags and examples.",
  ].join("\n");
}
