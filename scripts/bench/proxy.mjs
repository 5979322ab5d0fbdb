// Proxies (docs/performance.md "Proxies"): undici, which carries requests only through a
// proxy, is loaded only when HTTP_PROXY/HTTPS_PROXY is set (src/api/transport-choice.ts).
// The figure with the goal is `deploy list -o json` with no proxy variable (the existing one;
// benchEnv removes the proxy variables from every child); this adds, as an info row, the same
// command through a local forward proxy (scripts/bench/forward-proxy.mjs, a child process),
// so that what undici costs when it is used shows next to it.
import http from "node:http";
import { join } from "node:path";
import { startListening } from "./child.mjs";
import { benchEnv, command } from "./measure.mjs";

const PROXY_VARIABLES = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
];

/** Starts the forward proxy; resolves { url, count(), close() }. */
export async function startForwardProxy({ root, node = process.execPath }) {
  const proxy = await startListening({
    what: "the proxy",
    argv: [node, join(root, "scripts", "bench", "forward-proxy.mjs")],
    env: benchEnv(),
    timeoutMs: 10_000,
  });
  return {
    ...proxy,
    count: () =>
      new Promise((resolve, reject) => {
        http
          .get(`${proxy.url}/_proxy/count`, { agent: false }, (response) => {
            let text = "";
            response.setEncoding("utf8");
            response.on("data", (chunk) => {
              text += chunk;
            });
            response.on("end", () => resolve(JSON.parse(text)));
          })
          .on("error", reject);
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
