// Requests that race each other or lose their client half-way: a body cut off by a client
// that went away is that client's doing (no internal error, no stack trace), and a change
// that raced a DELETE is never acknowledged for a deployment that no longer exists.
import http from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import type { RequestEvent } from "../server.js";

afterEach(() => {
  vi.restoreAllMocks();
  return closeTestEmulators();
});

function nextEvent(em: TestEmulator, match: (event: RequestEvent) => boolean): Promise<RequestEvent> {
  return new Promise((resolve) => {
    const stop = em.emulator.observe((event) => {
      if (!match(event)) return;
      stop();
      resolve(event);
    });
  });
}

/** Starts a request with part of its body; the caller decides when (and whether) the rest comes. */
function partialRequest(em: TestEmulator, method: string, path: string, body: Buffer, sent: number) {
  let settle: (value: { status: number; text: string }) => void = () => {};
  const answer = new Promise<{ status: number; text: string }>((resolve) => {
    settle = resolve;
  });
  const request = http.request(`${em.url}${path}`, {
    method,
    headers: {
      "X-Api-Key": em.apiKey,
      "Content-Type": "application/json",
      "Content-Length": String(body.length),
    },
    agent: false,
  });
  request.on("response", (response) => {
    let text = "";
    response.on("data", (chunk) => {
      text += chunk;
    });
    response.on("end", () => settle({ status: response.statusCode ?? 0, text }));
  });
  request.on("error", () => settle({ status: 0, text: "" }));
  request.write(body.subarray(0, sent));
  return { request, answer, rest: () => request.end(body.subarray(sent)) };
}

describe("a client that goes away mid-body", () => {
  it("is a client mistake: answered 400 if anyone still listens, and nothing on stderr", async () => {
    const em = await startTestEmulator();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const body = Buffer.from(JSON.stringify(em.createBody("internal_container", "cut-off")));
    const received = nextEvent(em, (e) => e.phase === "received");
    const handled = nextEvent(em, (e) => e.phase === "handled");
    const { request } = partialRequest(em, "POST", "/v2/deployments", body, 10);
    await received;
    request.destroy();
    expect(await handled).toMatchObject({ status: 400 });
    const written = stderr.mock.calls.map((call) => String(call[0])).join("");
    expect(written).not.toMatch(/internal error|\n\s+at /);
    stderr.mockRestore();
    expect((await em.get("/v2/deployments")).json.resources).toEqual([]);
  });
});

describe("a change racing a DELETE", () => {
  it("a PATCH whose body arrives after the DELETE answers 404, not 200", async () => {
    const em = await startTestEmulator();
    const deployment = await em.createDeployment("internal_container");
    const body = Buffer.from(
      JSON.stringify({ source_revision_config: { image_uri: "registry.example.com/a:2" } }),
    );
    const received = nextEvent(em, (e) => e.phase === "received" && e.method === "PATCH");
    const patch = partialRequest(em, "PATCH", `/v2/deployments/${deployment.id}`, body, 5);
    await received;
    expect((await em.delete(`/v2/deployments/${deployment.id}`)).status).toBe(204);
    patch.rest();
    const { status, text } = await patch.answer;
    expect(status).toBe(404);
    expect(JSON.parse(text).detail).toBe(`Deployment ID ${deployment.id} not found.`);
    expect((await em.get(`/v2/deployments/${deployment.id}`)).status).toBe(404);
  });
});
