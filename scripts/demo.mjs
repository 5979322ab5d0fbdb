// `npm run demo`: the typical flow of the spec's section 1, run by the built CLI against an
// emulator this script starts and stops itself. Each command is shown before it runs, and
// writes to this terminal itself (so lists are tables with headers, as a user sees them);
// only the output the demo reads (an integration ID) is captured. CPCTL_DEMO_STAGE_MS sets the
// emulator's stage length (default 400 ms; the tests run it faster).
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../bin/cpctl.cjs", import.meta.url));
const env = { ...process.env, CI: "true" };
delete env.CPCTL_PROFILE;

const stageMs = process.env.CPCTL_DEMO_STAGE_MS ?? "400";
const emulator = spawn(process.execPath, [cli, "emulator", "--port", "0", "--stage-ms", stageMs], {
  stdio: ["ignore", "pipe", "inherit"],
  env,
});
const stop = () => emulator.exitCode === null && emulator.kill("SIGTERM");
process.on("exit", stop);
process.on("SIGINT", () => process.exit(130));

try {
  const url = await firstLine(emulator.stdout);
  const base = url.replace(/^listening on /, "");
  Object.assign(env, { CPCTL_BASE_URL: base, CPCTL_API_KEY: "demo-key" });
  console.log(`# local control plane at ${base} (CPCTL_BASE_URL), API key in CPCTL_API_KEY\n`);

  const integration = run(["integrations", "list", "-o", "id"], { capture: true }).split("\n")[0];
  run([
    "deploy",
    "create",
    "--name",
    "demo-agent",
    "--source",
    "gitrepo",
    "--integration-id",
    integration,
    "--repo-url",
    "https://github.com/acme/demo-agent",
    "--repo-ref",
    "main",
    "--agent-config-path",
    "agent.json",
    "--secret",
    "OPENAI_API_KEY=sk-demo-not-a-real-key",
  ]);
  run(["deploy", "get", "demo-agent"]);
  run(["deploy", "wait", "demo-agent", "--interval", "200ms"]);
  run(["deploy", "patch", "demo-agent", "--repo-ref", "release-1", "--wait", "--interval", "200ms"]);
  run(["deploy", "patch", "demo-agent", "--secret", "SLACK_TOKEN=xoxb-demo", "--dry-run"]);

  console.log(
    "# a release whose build fails (the emulator's fail-next control), its log, and the way back\n",
  );
  run(["emulator", "fail-next", "--stage", "BUILDING", "--message", 'npm ERR! Missing script: "build"']);
  run(["deploy", "patch", "demo-agent", "--repo-ref", "release-2", "--wait", "--interval", "200ms"], {
    expected: 5,
  });
  run(["deploy", "list"]);
  run(["deploy", "logs", "demo-agent", "--build", "--level", "INFO", "--limit", "8"]);
  console.log(
    "# release-3 builds and deploys, and turns out bad: back to the last good revision (release-1)\n",
  );
  run(["deploy", "patch", "demo-agent", "--repo-ref", "release-3", "--wait", "--interval", "200ms"]);
  run(["deploy", "rollback", "demo-agent", "--wait", "--interval", "200ms"]);
  run(["deploy", "revisions", "demo-agent"]);
  run(["deploy", "logs", "demo-agent", "--limit", "5"]);
  console.log("\n# demo finished: every command exited as expected");
} catch (error) {
  console.error(`\ndemo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  stop();
}

/**
 * Runs cpctl, showing the command first; any exit but `expected` stops the demo. Its output
 * goes to this terminal as it is, unless `capture` (the demo reads it) or this is no terminal.
 */
function run(args, { expected = 0, capture = false } = {}) {
  console.log(`$ cpctl ${args.map((a) => (/[\s"]/.test(a) ? `'${a}'` : a)).join(" ")}`);
  const piped = capture || !process.stdout.isTTY;
  const result = spawnSync(process.execPath, [cli, ...args], {
    env,
    encoding: "utf8",
    stdio: ["ignore", piped ? "pipe" : "inherit", "inherit"],
  });
  if (piped) process.stdout.write(result.stdout);
  if (result.status !== expected)
    throw new Error(`cpctl ${args.join(" ")} exited ${result.status}, not ${expected}`);
  console.log(expected === 0 ? "" : `(exit ${result.status}, as expected)\n`);
  return piped ? result.stdout.trim() : "";
}

async function firstLine(stream) {
  let text = "";
  const timer = setTimeout(() => emulator.kill("SIGKILL"), 10_000);
  for await (const chunk of stream) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  clearTimeout(timer);
  if (!text.startsWith("listening on "))
    throw new Error(`the emulator did not start (${text.trim() || "no output"})`);
  return text.split("\n")[0];
}
await once(emulator, "exit").catch(() => {});
