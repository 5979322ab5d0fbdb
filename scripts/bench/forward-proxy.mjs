#!/usr/bin/env node
// A forward HTTP proxy for the benchmark (as test/helpers/proxy.ts is for the tests), run as
// its own process so that it serves while the benchmark waits on spawnSync: on 127.0.0.1 with
// an OS-chosen port, it forwards absolute-form requests (http:// targets) and tunnels CONNECT
// (https:// targets), to loopback only. Its first stdout line is `listening on URL`.
// `GET /_proxy/count` (origin form, to the proxy itself) answers {"forwarded", "tunnels"}.
import http from "node:http";
import net from "node:net";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
let forwarded = 0;
let tunnels = 0;
const sockets = new Set();

const server = http.createServer((req, res) => {
  if (req.url === "/_proxy/count") {
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ forwarded, tunnels }));
    return;
  }
  let target;
  try {
    target = new URL(req.url ?? "");
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (target.protocol !== "http:" || !LOOPBACK.has(target.hostname)) {
    res.writeHead(403).end();
    return;
  }
  forwarded++;
  const { "proxy-authorization": _auth, "proxy-connection": _conn, ...headers } = req.headers;
  const upstream = http.request(target, { method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", () => res.writeHead(502).end());
  req.pipe(upstream);
});

server.on("connect", (req, client) => {
  sockets.add(client);
  const [host, port] = (req.url ?? "").split(":");
  if (!LOOPBACK.has(host)) {
    client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
    return;
  }
  tunnels++;
  const upstream = net.connect(Number(port), host, () => {
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
});

server.on("connection", (socket) => {
  sockets.add(socket);
  socket.on("close", () => sockets.delete(socket));
});

const stop = () => {
  for (const socket of sockets) socket.destroy();
  server.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
