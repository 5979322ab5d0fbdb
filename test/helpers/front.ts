// A server in front of the test emulator: every request goes through to it unless the test's
// `intercept` answers it first. For what the emulator will not do on its own: a service that
// hides secret values, an answer that races with another writer.
//
//   const front = await frontOf(em, async (req) => req.method === "POST" ? { status: 409, body: {...} } : undefined);
//   await runCli([...], { env: { CPCTL_BASE_URL: front.url, CPCTL_API_KEY: em.apiKey } });
//   await front.close();
import { createServer } from "node:http";
import type { TestEmulator, TestResponse } from "./emulator.js";

export interface FrontRequest {
  method: string;
  url: string;
  body: Buffer;
}

export interface FrontAnswer {
  status: number;
  body: unknown;
}

export interface Front {
  url: string;
  close(): Promise<void>;
}

export async function frontOf(
  em: TestEmulator,
  intercept: (request: FrontRequest) => Promise<FrontAnswer | undefined> | FrontAnswer | undefined,
  rewrite: (answer: TestResponse, request: FrontRequest) => string = (answer) => answer.text,
): Promise<Front> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = { method: req.method ?? "GET", url: req.url ?? "/", body: Buffer.concat(chunks) };
    const own = await intercept(request);
    if (own) {
      res.writeHead(own.status, { "Content-Type": "application/json" }).end(JSON.stringify(own.body));
      return;
    }
    const answer = await em.request(request.method, request.url, {
      rawBody: request.body.length ? request.body : undefined,
      headers: request.body.length ? { "Content-Type": "application/json" } : {},
    });
    const headers: Record<string, string> = {};
    if (answer.text) headers["Content-Type"] = String(answer.headers["content-type"] ?? "application/json");
    res.writeHead(answer.status, headers).end(rewrite(answer, request));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
