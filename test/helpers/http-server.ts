// A local HTTP server for tests to play a control plane, a proxy's answer or a service that
// misbehaves: on 127.0.0.1 with an OS-chosen port, every request recorded.
//
//   const server = await startServer((req, res) => json(res, 200, { resources: [], offset: 0 }));
//   await runCli(["deploy", "list"], { env: { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" } });
//   expect(server.requests.map((r) => r.method)).toEqual(["GET"]);
//
// Started in a test (or a beforeEach), a server closes when that test ends. Started in a
// beforeAll, it is the caller's to close: `afterAll(() => server.close())`.
import http, { type IncomingHttpHeaders, type ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { onTestFinished, TestRunner } from "vitest";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  body: string;
  /** The body as it came. */
  bytes: Buffer;
}

/**
 * Answers a request once its body has been read. `n` numbers the requests in the order they
 * arrived, from 1; `res.req` is the request itself (its socket, say).
 */
export type Handler = (req: RecordedRequest, res: ServerResponse, n: number) => unknown;

export interface TestServer {
  url: string;
  port: number;
  /** Every request whose body has been read, in that order. */
  requests: RecordedRequest[];
  /** Requests that arrived (their head), answered or not. */
  count(): number;
  /** Connections accepted. */
  connections(): number;
  /** Ends every connection and stops listening; once is enough, twice is harmless. */
  close(): Promise<void>;
}

export interface ServerOptions {
  /** Serve https:// with this key and certificate. */
  tls?: { key: Buffer; cert: Buffer };
}

export async function startServer(handler: Handler, options: ServerOptions = {}): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  let arrived = 0;
  let connections = 0;
  const listener = (req: http.IncomingMessage, res: ServerResponse) => {
    const n = ++arrived;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const bytes = Buffer.concat(chunks);
      const recorded = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: bytes.toString("utf8"),
        bytes,
      };
      requests.push(recorded);
      void handler(recorded, res, n);
    });
  };
  const server = options.tls ? https.createServer(options.tls, listener) : http.createServer(listener);
  server.on("connection", () => {
    connections++;
  });
  const { port, close } = await listen(server);
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    requests,
    count: () => arrived,
    connections: () => connections,
    close,
  };
}

/**
 * Listens on 127.0.0.1 with an OS-chosen port, for a server that needs more than a handler
 * (a forward proxy's CONNECT, say). `close` ends every HTTP connection (and first calls
 * `endOthers` for sockets the server handed over, such as tunnels); in a test it runs when
 * the test ends.
 */
export async function listen(
  server: http.Server | https.Server,
  endOthers: () => void = () => {},
): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      endOthers();
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closed;
  };
  if (TestRunner.getCurrentTest()) onTestFinished(close);
  return { port, close };
}

/** A JSON answer, with its Content-Length. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** No answer at all: the connection is dropped. */
export function drop(_req: RecordedRequest, res: ServerResponse): void {
  res.socket?.destroy();
}

/** A port that was just in use and is now closed: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
