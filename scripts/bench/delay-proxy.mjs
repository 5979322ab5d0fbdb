#!/usr/bin/env node
// A reverse proxy that puts a network's distance between a client and the emulator, run by the
// benchmark as a child process (its own event loop: the benchmark's waits on whole processes):
//
//   node scripts/bench/delay-proxy.mjs --target http://127.0.0.1:PORT --rtt 100
//
// Each request costs one round trip: half of it before the request reaches the emulator, half
// before the answer reaches the client. A new connection costs one more (the TCP handshake),
// so that a client that reuses its connections gains what it would over a real network. The
// first line on stdout is `listening on http://127.0.0.1:PORT`.
//
// Its own routes, neither delayed nor counted: GET /_delay/stats gives {since, requests:
// [{method, path, at, done, status}]} (`since`: the wall clock of the last reset, in
// milliseconds; `at` and `done`: milliseconds after it that the request arrived and that its
// answer was sent), POST /_delay/reset clears them, POST /_delay/rtt {"rtt_ms": N} changes
// the round trip. Request bodies are streamed on (an upload is not held), answers read whole.
import http from "node:http";
import net from "node:net";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const target = new URL(option("--target"));
let rttMs = Number(option("--rtt", "0"));
const agent = new http.Agent({ keepAlive: true });
let requests = [];
const wallNow = () => performance.timeOrigin + performance.now();
let since = wallNow();

const sleep = (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

function readBody(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    stream.on("data", (chunk) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

function answer(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

/** Sends `req` on to the emulator, its body streamed; resolves with the answer, read whole. */
function forward(req) {
  return new Promise((resolve, reject) => {
    // The Host header is the client's: the emulator builds upload URLs from it, so that the
    // upload comes back through the proxy too.
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      async (res) => resolve({ status: res.statusCode, headers: res.headers, body: await readBody(res) }),
    );
    upstream.on("error", reject);
    req.pipe(upstream);
  });
}

const server = http.createServer(async (req, res) => {
  const path = req.url.split("?")[0];
  if (path.startsWith("/_delay/")) {
    const body = await readBody(req);
    if (req.method === "GET" && path === "/_delay/stats") return answer(res, 200, { since, requests });
    if (req.method === "POST" && path === "/_delay/reset") {
      requests = [];
      since = wallNow();
      return answer(res, 200, {});
    }
    if (req.method === "POST" && path === "/_delay/rtt") {
      rttMs = Number(JSON.parse(body.toString("utf8")).rtt_ms);
      return answer(res, 200, { rtt_ms: rttMs });
    }
    return answer(res, 404, { detail: "no such route" });
  }
  const record = { method: req.method, path, at: wallNow() - since, done: null, status: null };
  requests.push(record);
  try {
    await sleep(rttMs / 2);
    const upstream = await forward(req);
    await sleep(rttMs / 2);
    const headers = { ...upstream.headers };
    delete headers["transfer-encoding"];
    headers["content-length"] = String(upstream.body.length);
    res.writeHead(upstream.status, headers);
    res.end(upstream.body, () => {
      record.done = wallNow() - since;
      record.status = upstream.status;
    });
  } catch (error) {
    answer(res, 502, { detail: `delay proxy: ${error.message}` });
  }
});

server.keepAliveTimeout = 30_000;

// The handshake: a new connection reaches the HTTP server one round trip after it was made
// (what it sends meanwhile waits in its socket).
const front = net.createServer((socket) => {
  setTimeout(() => server.emit("connection", socket), rttMs);
});
front.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${front.address().port}\n`);
});
process.on("SIGTERM", () => {
  front.close();
  server.closeAllConnections();
  process.exit(0);
});
