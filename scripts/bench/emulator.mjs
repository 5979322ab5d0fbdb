// The benchmark's emulator: the built `cpctl emulator` in a child process on an OS-chosen
// loopback port, memory-only state, and a fast seeder that creates deployments through the
// public HTTP API (many concurrent POSTs over keep-alive connections).
import http from "node:http";
import { startListening } from "./child.mjs";

/** Starts `node bin/cpctl.cjs emulator --port 0`; resolves { url, pid, close() } once it prints its address. */
export function startEmulator({ root, env, stageMs = 0 }) {
  return startListening({
    what: "the emulator",
    argv: [process.execPath, "bin/cpctl.cjs", "emulator", "--port", "0", "--stage-ms", String(stageMs)],
    env,
    cwd: root,
  });
}

/**
 * One HTTP exchange on `agent`; resolves { status, body } (body as a string). Rejects on a
 * network error or after `timeoutMs`.
 */
export function exchange(agent, url, { method = "GET", headers = {}, body, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, agent }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () =>
        resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    request.setTimeout(timeoutMs, () =>
      request.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)),
    );
    request.on("error", reject);
    request.end(body);
  });
}

/**
 * Creates `count` deployments for the tenant of `apiKey`, `concurrency` POSTs in flight at
 * a time over as many keep-alive connections. Returns { ms, perSecond }.
 */
export async function seedDeployments({ url, apiKey, count, prefix, concurrency = 64 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const headers = { "X-Api-Key": apiKey, "Content-Type": "application/json", Accept: "application/json" };
  try {
    const listeners = await exchange(agent, `${url}/v2/listeners`, { headers });
    if (listeners.status !== 200) throw new Error(`GET /v2/listeners: ${listeners.status} ${listeners.body}`);
    const listener = JSON.parse(listeners.body).resources[0];
    const start = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const body = JSON.stringify(deploymentBody(`${prefix}-${String(i).padStart(5, "0")}`, i, listener));
        const answer = await exchange(agent, `${url}/v2/deployments`, { method: "POST", headers, body });
        if (answer.status !== 201)
          throw new Error(`POST /v2/deployments #${i}: ${answer.status} ${answer.body.slice(0, 500)}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    const ms = performance.now() - start;
    return { ms, perSecond: (count / ms) * 1000 };
  } finally {
    agent.destroy();
  }
}

/** Alternates the two container sources, with the fields a real deployment carries. */
function deploymentBody(name, i, listener) {
  const secrets = [
    { name: "OPENAI_API_KEY", value: `sk-bench-${i}` },
    { name: "DATABASE_URL", value: `postgres://agent:pw${i}@db.internal:5432/agent` },
  ];
  if (i % 2 === 0) {
    return {
      name,
      source: "internal_container",
      source_config: {},
      source_revision_config: { image_uri: `registry.example.com/agents/${name}:1.${i % 50}.0` },
      secrets,
    };
  }
  return {
    name,
    source: "external_container",
    source_config: {
      listener_id: listener.id,
      listener_config: { k8s_namespace: listener.compute_config.k8s_namespaces[0] },
      resource_spec: {
        min_scale: 1,
        max_scale: 3,
        cpu: 1,
        memory_mb: 2048,
        labels: { team: "agents", tier: "bench" },
      },
    },
    source_revision_config: { image_uri: `ghcr.io/acme/${name}:2.${i % 30}.1` },
    secrets,
  };
}
