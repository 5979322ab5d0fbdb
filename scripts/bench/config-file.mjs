// A project config file (docs/performance.md): it is read, and the YAML library loaded, only
// when one exists (src/config/files.ts: a few stat calls decide). The existing `deploy list -o
// json` figure is the no-file case; this is the same command run from a project directory
// whose .cpctlrc.yaml holds the profile that points at the emulator (address and key from the
// file alone: the environment gives neither), timed against the same bare node:http floor,
// with the same goal.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { command } from "./measure.mjs";

const CPCTL_VARIABLES = [
  "CPCTL_BASE_URL",
  "CPCTL_API_KEY",
  "CPCTL_BEARER_TOKEN",
  "CPCTL_PROFILE",
  "CPCTL_TENANT_ID",
];

/**
 * A project directory under `work` with a .cpctlrc.yaml for `emulatorUrl` and `apiKey`, and
 * the command `list` (from measure.mjs) run from it with no CPCTL_* address or credential.
 */
export function withProjectConfig(list, { work, emulatorUrl, apiKey }) {
  const project = join(work, "project");
  mkdirSync(project, { recursive: true });
  const file = join(project, ".cpctlrc.yaml");
  // A key written in the project file is the project's own and may go to the host it names
  // (docs/configuration.md, "Project files from repositories you did not write"): no trust setting needed.
  // Mode 0600, as cpctl asks of a file that holds a literal credential (else it warns).
  writeFileSync(
    file,
    `# The benchmark's project: its emulator.\ndefaultProfile: bench\nprofiles:\n  bench:\n    baseUrl: ${emulatorUrl}\n    apiKey: ${apiKey}\n    output: table\n`,
    { mode: 0o600 },
  );
  const env = { ...list.env };
  for (const name of CPCTL_VARIABLES) delete env[name];
  return { file, subject: command(`${list.label}, ./.cpctlrc.yaml`, list.argv, { env, cwd: project }) };
}
