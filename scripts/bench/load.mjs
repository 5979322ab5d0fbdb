// A small closed-loop load generator: `connections` keep-alive connections, each sending its
// next request as soon as the previous answer is read, until `requests` answers have come
// back or `maxMs` has passed. Loopback only: it refuses any other host.
import http from "node:http";

export async function loadTest({
  url,
  headers = {},
  connections = 50,
  requests = 20_000,
  warmup = 500,
  maxMs = 30_000,
}) {
  const target = new URL(url);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(target.hostname)) {
    throw new Error(`loadTest: loopback only, not ${target.hostname}`);
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const options = { method: "GET", headers: { Accept: "application/json", ...headers }, agent };
  const one = () =>
    new Promise((resolve, reject) => {
      const request = http.request(target, options, (response) => {
        let bytes = 0;
        response.on("data", (chunk) => {
          bytes += chunk.length;
        });
        response.on("error", reject);
        response.on("end", () => resolve({ status: response.statusCode, bytes }));
      });
      request.setTimeout(10_000, () => request.destroy(new Error("no answer within 10 s")));
      request.on("error", reject);
      request.end();
    });

  const run = async (count, deadline) => {
    let sent = 0;
    let done = 0;
    let failed = 0;
    let bytes = 0;
    const firstError = [];
    const latencies = [];
    const loop = async () => {
      while (sent < count && performance.now() < deadline) {
        sent++;
        const t0 = performance.now();
        try {
          const answer = await one();
          latencies.push(performance.now() - t0);
          bytes += answer.bytes;
          if (answer.status === 200) done++;
          else {
            failed++;
            if (firstError.length === 0) firstError.push(`status ${answer.status}`);
          }
        } catch (error) {
          failed++;
          if (firstError.length === 0) firstError.push(error.message);
        }
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: connections }, loop));
    const ms = performance.now() - start;
    latencies.sort((a, b) => a - b);
    return {
      ok: done,
      failed,
      ms,
      perSecond: (done / ms) * 1000,
      bytesPerAnswer: done ? Math.round(bytes / (done + failed)) : 0,
      p50: latencies[Math.floor(latencies.length * 0.5)] ?? Number.NaN,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN,
      timedOut: sent < count,
      error: firstError[0],
    };
  };

  try {
    // Opens the connections and warms both sides' JIT; not counted.
    await run(warmup, performance.now() + maxMs);
    return await run(requests, performance.now() + maxMs);
  } finally {
    agent.destroy();
  }
}
