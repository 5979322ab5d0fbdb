// Proxies (docs/performance.md "Proxies"): undici, which carries requests only through a
// proxy, is loaded only when HTTP_PROXY/HTTPS_PROXY is set (src/api/transport-choice.ts).
// The figure with the goal is `deploy list -o json` with no proxy variable (the existing one;
// benchEnv removes the proxy variables from every child); this adds, as an info row, the same
// command through a local forward proxy (scripts/bench/forward-proxy.mjs, a child process),
// so that what undici costs when it is used shows next to it.
import { spawn } from "node:child_process";
import http from "node:http";
import { join } from "node:path";
import { benchEnv, command } from "./measure.mjs";

const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"];

/** Starts the forward proxy; resolves { url, count(), close() }. */
export async function startForwardProxy({ root, node = process.execPath }) {
  const child = spawn(node, [join(root, "scripts", "bench", "forward-proxy.mjs")], {
    env: benchEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(
      () => fail(new Error("the proxy did not print its address within 10 s")),
      10_000,
    );
    const fail = (error) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`${error.message}\n${stderr}`));
    };
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (!stdout.includes("\n")) return;
      const match = /^listening on (http:\/\/\S+)$/.exec(stdout.split("\n")[0]);
      if (!match) return fail(new Error(`unexpected first line from the proxy: ${stdout.split("\n")[0]}`));
      clearTimeout(timer);
      resolve(match[1]);
    });
    child.once("exit", (code, signal) => fail(new Error(`the proxy exited early (${code ?? signal})`)));
    child.once("error", fail);
  });
  child.removeAllListeners("exit");
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  return {
    url,
    pid: child.pid,
    count: () =>
      new Promise((resolve, reject) => {
        http
          .get(`${url}/_proxy/count`, { agent: false }, (response) => {
            let text = "";
            response.setEncoding("utf8");
            response.on("data", (chunk) => {
              text += chunk;
            });
            response.on("end", () => resolve(JSON.parse(text)));
          })
          .on("error", reject);
      }),
    close: () =>
      new Promise((resolve) => {
        process.removeListener("exit", killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

/**
 * The subject of the info row: `list` (a command from measure.mjs) with HTTP_PROXY set to the
 * proxy, and no other proxy variable.
 */
export function throughProxy(list, proxyUrl) {
  const env = { ...list.env };
  for (const name of PROXY_VARIABLES) delete env[name];
  env.HTTP_PROXY = proxyUrl;
  return command(`${list.label}, HTTP_PROXY=${proxyUrl}`, list.argv, { env, cwd: list.cwd });
}

/** The proxy variables set in this process's environment (removed from the children). */
export function proxyVariablesHere() {
  return PROXY_VARIABLES.filter((name) => process.env[name]);
}
