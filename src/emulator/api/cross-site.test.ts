// A web page in the same user's browser must not drive the emulator: cross-site requests
// (CSRF) and DNS rebinding are refused before they reach a route, without touching the
// state; what the CLI, curl and tests send is unaffected.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../../../test/helpers/emulator.js";

afterEach(closeTestEmulators);

const control = { auth: false } as const;

describe("cross-site requests", () => {
  it("a plain-text POST from another site cannot reset the emulator or inject a fault", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container");
    // What a <form method=post enctype=text/plain> or fetch(..., {mode: "no-cors"}) sends.
    const page = { Origin: "https://evil.example", "Content-Type": "text/plain" };
    const reset = await em.request("POST", "/_emulator/reset", { ...control, headers: page, rawBody: "x" });
    expect(reset.status).toBe(403);
    expect(reset.json.detail).toMatch(/another origin .*https:\/\/evil\.example/);
    const fault = await em.request("POST", "/_emulator/faults", {
      ...control,
      headers: page,
      rawBody: JSON.stringify({ path: "/v2/deployments", status: 500, count: 100 }),
    });
    expect(fault.status).toBe(403);
    expect(em.emulator.faults()).toEqual([]);
    expect((await em.get("/v2/deployments")).json.resources).toHaveLength(1);
  });

  it("a control POST without Content-Type: application/json is refused (415), even with no Origin", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container");
    for (const type of [
      undefined,
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
    ]) {
      const headers: Record<string, string> = type ? { "Content-Type": type } : {};
      const reset = await em.request("POST", "/_emulator/reset", { ...control, headers, rawBody: "" });
      expect(reset.status, String(type)).toBe(415);
      expect(reset.json.detail).toMatch(/Content-Type: application\/json/);
    }
    expect((await em.get("/v2/deployments")).json.resources).toHaveLength(1);
    const json = { "Content-Type": "application/json; charset=utf-8" };
    expect((await em.request("POST", "/_emulator/reset", { ...control, headers: json })).status).toBe(204);
  });

  it("a page whose host name points at 127.0.0.1 (DNS rebinding) can neither read nor change anything", async () => {
    const em = await startTestEmulator();
    const port = new URL(em.url).port;
    await em.createDeployment("internal_container");
    // Same-origin for the browser: it sends the rebinding name as Host, and Origin on POST.
    const rebound = { Host: `rebind.evil.example:${port}` };
    for (const path of ["/_emulator/tracing-projects", "/_emulator/stats", "/v2/deployments"]) {
      const read = await em.get(path, { headers: rebound });
      expect(read.status, path).toBe(403);
      expect(read.json.detail).toMatch(/Host header .* is not a loopback name/);
    }
    const post = await em.post(
      "/_emulator/reset",
      {},
      {
        ...control,
        headers: { ...rebound, Origin: `http://rebind.evil.example:${port}` },
      },
    );
    expect(post.status).toBe(403);
    expect((await em.get("/v2/deployments")).json.resources).toHaveLength(1);
  });

  it("browsers' Sec-Fetch-Site and a null Origin give a page away too", async () => {
    const em = await startTestEmulator();
    const pages: Record<string, string>[] = [
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
      { Origin: "null" },
    ];
    for (const headers of pages) {
      expect((await em.get("/v2/deployments", { headers })).status, JSON.stringify(headers)).toBe(403);
    }
  });

  it("lets the emulator's own clients through: loopback names and addresses, its own origin", async () => {
    const em = await startTestEmulator();
    const port = new URL(em.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      `app.localhost:${port}`,
      "127.0.0.2",
    ]) {
      expect((await em.get("/v2/deployments", { headers: { Host: host } })).status, host).toBe(200);
    }
    const own = { Origin: em.url, "Sec-Fetch-Site": "same-origin" };
    expect((await em.get("/v2/deployments", { headers: own })).status).toBe(200);
    expect((await em.post("/_emulator/clock", { advance_ms: 1 }, { ...control, headers: own })).status).toBe(
      200,
    );
  });
});
