// A forward HTTP proxy for tests, on 127.0.0.1 with an OS-chosen port: absolute-form requests
// (http:// targets) are forwarded, CONNECT (https:// targets) is tunnelled. It records what it
// carried, and with `credentials` answers 407 unless Proxy-Authorization carries them; with
// `refuse` it answers every request and CONNECT with that status and an HTML page of its own,
// as a proxy's access rules do; with `tls` it is an https:// proxy. Like any test server
// (./http-server.ts), it closes when the test that started it ends.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { listen } from "./http-server.js";

export interface TestProxy {
  url: string;
  /** "GET http://127.0.0.1:1234/v2/deployments" for each forwarded request. */
  forwarded: string[];
  /** "127.0.0.1:443" for each tunnel asked for. */
  tunnels: string[];
  /** Proxy-Authorization headers seen. */
  authorizations: string[];
  close(): Promise<void>;
}

interface ProxyOptions {
  credentials?: string;
  refuse?: number;
  tls?: { key: Buffer; cert: Buffer };
}

const REFUSAL_PAGE = "<html><head><title>Access denied</title></head><body>Filtered by policy</body></html>";

export async function startProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const forwarded: string[] = [];
  const tunnels: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<net.Socket>();
  const allowed = (header: string | undefined) => {
    if (header) authorizations.push(header);
    return !options.credentials || header === `Basic ${Buffer.from(options.credentials).toString("base64")}`;
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (options.refuse) {
      forwarded.push(`${req.method} ${req.url}`);
      res.writeHead(options.refuse, { "Content-Type": "text/html", Server: "test-proxy" }).end(REFUSAL_PAGE);
      return;
    }
    if (!allowed(req.headers["proxy-authorization"])) {
      res.writeHead(407, { "Proxy-Authenticate": 'Basic realm="test"' }).end();
      return;
    }
    forwarded.push(`${req.method} ${req.url}`);
    const { "proxy-authorization": _auth, "proxy-connection": _conn, ...headers } = req.headers;
    const upstream = http.request(req.url ?? "", { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  server.on("connect", (req: http.IncomingMessage, client: net.Socket) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    if (options.refuse) {
      tunnels.push(req.url ?? "");
      client.end(`HTTP/1.1 ${options.refuse} Refused\r\nContent-Type: text/html\r\n\r\n${REFUSAL_PAGE}`);
      return;
    }
    if (!allowed(req.headers["proxy-authorization"])) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n',
      );
      return;
    }
    tunnels.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const upstream = net.connect(Number(port), host!, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    // A tunnel ends whole: the server at its far end is not left holding a connection.
    client.on("close", () => upstream.destroy());
  });
  // A tunnel is no longer the HTTP server's to end.
  const { port, close } = await listen(server, () => {
    for (const socket of sockets) socket.destroy();
  });
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    forwarded,
    tunnels,
    authorizations,
    close,
  };
}
