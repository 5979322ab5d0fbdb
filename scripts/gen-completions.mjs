// Regenerates the checked-in completion scripts under completions/ from the built CLI, so
// that they are byte for byte what `cpctl completion SHELL` prints. Build first
// (`npm run build`). With --check, writes nothing and exits 1 when a file is stale.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const files = { bash: "cpctl.bash", zsh: "_cpctl", fish: "cpctl.fish" };
const check = process.argv.includes("--check");
let stale = 0;

for (const [shell, file] of Object.entries(files)) {
  const script = execFileSync(process.execPath, ["bin/cpctl.cjs", "completion", shell], {
    cwd: root,
    encoding: "utf8",
  });
  const path = `${root}completions/${file}`;
  let current = null;
  try {
    current = readFileSync(path, "utf8");
  } catch {}
  if (current === script) continue;
  stale++;
  if (check) console.error(`completions/${file} is stale: run npm run completions`);
  else {
    writeFileSync(path, script);
    console.error(`wrote completions/${file}`);
  }
}
process.exitCode = check && stale ? 1 : 0;
