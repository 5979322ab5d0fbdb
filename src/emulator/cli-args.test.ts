import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { parseEmulatorArgs } from "./cli-args.js";

describe("parseEmulatorArgs", () => {
  it("defaults to port 8124 and passes the rest through", () => {
    expect(parseEmulatorArgs({})).toEqual({ port: 8124 });
    expect(
      parseEmulatorArgs({
        port: "0",
        host: "0.0.0.0",
        state: "state.json",
        stageMs: "250",
        apiKey: ["a", "b", "a"],
        tenantHeader: "X-Workspace-Id",
      }),
    ).toEqual({
      port: 0,
      host: "0.0.0.0",
      statePath: "state.json",
      stageMs: 250,
      apiKeys: ["a", "b"],
      tenantHeader: "X-Workspace-Id",
    });
    expect(parseEmulatorArgs({ host: "[::1]", port: "65535", stageMs: "0", apiKey: [] })).toEqual({
      host: "::1",
      port: 65535,
      stageMs: 0,
    });
  });

  it("takes keys bound to tenants and a control token", () => {
    const bound = "k=0a0a0a0a-0000-4000-8000-000000000001,0a0a0a0a-0000-4000-8000-000000000002";
    expect(parseEmulatorArgs({ apiKey: [bound, "base64=="], controlToken: "ctl" })).toEqual({
      port: 8124,
      apiKeys: [bound, "base64=="],
      controlToken: "ctl",
    });
  });

  it.each([
    [{ port: "65536" }, /--port/],
    [{ port: "-1" }, /--port/],
    [{ port: "80x" }, /--port/],
    [{ port: "" }, /--port/],
    [{ stageMs: "1.5" }, /--stage-ms/],
    [{ stageMs: "-5" }, /--stage-ms/],
    [{ stageMs: "soon" }, /--stage-ms/],
    [{ host: "" }, /--host/],
    [{ host: "http://x" }, /--host/],
    [{ state: " " }, /--state/],
    [{ apiKey: [""] }, /--api-key/],
    [{ apiKey: ["a b "] }, /--api-key/],
    [{ apiKey: ["a\nb"] }, /--api-key/],
    [{ apiKey: ["k=0a0a0a0a-0000-4000-8000-000000000001,nope"] }, /--api-key the tenants after "=" must be/],
    [{ apiKey: [" k=0a0a0a0a-0000-4000-8000-000000000001"] }, /--api-key must be/],
    [{ controlToken: "" }, /--control-token/],
    [{ controlToken: "a\tb" }, /--control-token/],
    [{ tenantHeader: "X Tenant" }, /--tenant-header/],
    [{ tenantHeader: "Authorization" }, /--tenant-header cannot be/],
  ])("refuses %j with a UsageError naming the flag", (args, message) => {
    expect(() => parseEmulatorArgs(args)).toThrow(UsageError);
    expect(() => parseEmulatorArgs(args)).toThrow(message);
  });
});
