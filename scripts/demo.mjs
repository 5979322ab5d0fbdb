// `npm run demo`: the typical flow of the spec's section 1, run by the built CLI against an
// emulator this script starts and stops itself. Each command is shown before it runs.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../bin/cpctl.js", import.meta.url));
const env = { ...process.env, CI: "true" };
delete env.CPCTL_PROFILE;

const emulator = spawn(process.execPath, [cli, "emulator", "--port", "0", "--stage-ms", "400"], {
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

  const integration = run(["integrations", "list", "-o", "id"]).split("\n")[0];
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
  run(["deploy", "list"]);
  run(["deploy", "revisions", "demo-agent"]);
  run(["integrations", "list"]);
  console.log("\n# demo finished: every command exited 0");
} catch (error) {
  console.error(`\ndemo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  stop();
}

function run(args) {
  console.log(`$ cpctl ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" ")}`);
  const result = spawnSync(process.execPath, [cli, ...args], {
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.stdout.write(result.stdout);
  if (result.status !== 0) throw new Error(`cpctl ${args.join(" ")} exited ${result.status}`);
  console.log("");
  return result.stdout.trim();
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
