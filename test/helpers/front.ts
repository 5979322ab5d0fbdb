// A server in front of the test emulator: every request goes through to it unless the test's
// `intercept` answers it first. For what the emulator will not do on its own: a service that
// hides secret values, an answer that races with another writer, an https:// address.
//
//   const front = await frontOf(em, { intercept: (req) => req.method === "POST" ? { status: 409, body: {...} } : undefined });
//   await runCli([...], { env: { CPCTL_BASE_URL: front.url, CPCTL_API_KEY: em.apiKey } });
//
// Like any test server (./http-server.ts), it closes when the test that started it ends.
import type { TestEmulator, TestResponse } from "./emulator.js";
import {
  json,
  type RecordedRequest,
  type ServerOptions,
  startServer,
  type TestServer,
} from "./http-server.js";

export interface FrontAnswer {
  status: number;
  body: unknown;
}

export interface FrontOptions extends ServerOptions {
  /** An answer of the test's own, or undefined to let the emulator answer. */
  intercept?: (request: RecordedRequest) => Promise<FrontAnswer | undefined> | FrontAnswer | undefined;
  /** The body sent back for the emulator's answer (its text by default). */
  rewrite?: (answer: TestResponse, request: RecordedRequest) => string;
}

export async function frontOf(em: TestEmulator, options: FrontOptions = {}): Promise<TestServer> {
  const { intercept = () => undefined, rewrite = (answer) => answer.text, ...serverOptions } = options;
  return startServer(async (request, res) => {
    const own = await intercept(request);
    if (own) {
      json(res, own.status, own.body);
      return;
    }
    const answer = await em.request(request.method, request.url, {
      rawBody: request.bytes.length ? request.bytes : undefined,
      headers: request.bytes.length ? { "Content-Type": "application/json" } : {},
    });
    const headers: Record<string, string> = {};
    if (answer.text) headers["Content-Type"] = String(answer.headers["content-type"] ?? "application/json");
    res.writeHead(answer.status, headers).end(rewrite(answer, request));
  }, serverOptions);
}
