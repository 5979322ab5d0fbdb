import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { emulatorKeySource, parseEmulatorArgs } from "./run-args.js";

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

describe("keys and the control token from the environment (kept off the command line, out of ps)", () => {
  const U1 = "0a0a0a0a-0000-4000-8000-000000000001";
  const U2 = "0a0a0a0a-0000-4000-8000-000000000002";

  it("CPCTL_EMULATOR_API_KEYS: keys separated by white space, each KEY or KEY=TENANT[,TENANT...]", () => {
    const env = { CPCTL_EMULATOR_API_KEYS: ` dev-key\tci=${U1},${U2}\n base64==\r\ndev-key\n` };
    expect(parseEmulatorArgs({}, env)).toEqual({
      port: 8124,
      apiKeys: ["dev-key", `ci=${U1},${U2}`, "base64=="],
    });
    expect(emulatorKeySource({}, env)).toBe("CPCTL_EMULATOR_API_KEYS");
  });

  it("CPCTL_EMULATOR_CONTROL_TOKEN: the control token, its surrounding white space dropped (as the controls do)", () => {
    expect(parseEmulatorArgs({}, { CPCTL_EMULATOR_CONTROL_TOKEN: "ctl-secret\n" })).toEqual({
      port: 8124,
      controlToken: "ctl-secret",
    });
  });

  it("a flag wins over its variable, each on its own", () => {
    const env = { CPCTL_EMULATOR_API_KEYS: "env-key", CPCTL_EMULATOR_CONTROL_TOKEN: "env-ctl" };
    expect(parseEmulatorArgs({ apiKey: ["flag-key"] }, env)).toEqual({
      port: 8124,
      apiKeys: ["flag-key"],
      controlToken: "env-ctl",
    });
    expect(emulatorKeySource({ apiKey: ["flag-key"] }, env)).toBe("--api-key");
    expect(parseEmulatorArgs({ controlToken: "flag-ctl" }, env)).toEqual({
      port: 8124,
      apiKeys: ["env-key"],
      controlToken: "flag-ctl",
    });
    expect(emulatorKeySource({}, {})).toBeNull();
  });

  it.each([
    [{ CPCTL_EMULATOR_API_KEYS: "" }, /^CPCTL_EMULATOR_API_KEYS is set but empty: .*unset it/],
    [{ CPCTL_EMULATOR_API_KEYS: " \n\t" }, /^CPCTL_EMULATOR_API_KEYS is set but empty/],
    [{ CPCTL_EMULATOR_CONTROL_TOKEN: "" }, /^CPCTL_EMULATOR_CONTROL_TOKEN is set but empty: .*unset it/],
    [{ CPCTL_EMULATOR_CONTROL_TOKEN: "  " }, /^CPCTL_EMULATOR_CONTROL_TOKEN is set but empty/],
  ])(
    "an empty variable (a CI secret that is missing) is refused, never taken for no keys: %j",
    (env, message) => {
      expect(() => parseEmulatorArgs({}, env)).toThrow(UsageError);
      expect(() => parseEmulatorArgs({}, env)).toThrow(message);
    },
  );

  it.each([
    [`Zq9vW7kXsecret=${U1},nope`, /^CPCTL_EMULATOR_API_KEYS: the tenants after "=" must be/],
    // White space separates keys: a tenant list has none.
    [`Zq9vW7kXsecret=${U1}, ${U2}`, /^CPCTL_EMULATOR_API_KEYS: .*separated by white space/],
    ["Zq9v\u0001W7kXsecret", /^CPCTL_EMULATOR_API_KEYS: .*control characters/],
  ])("a bad entry is refused naming the variable, never quoting the key: %j", (keys, message) => {
    const parse = () => parseEmulatorArgs({}, { CPCTL_EMULATOR_API_KEYS: keys });
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
    try {
      parse();
    } catch (error) {
      expect((error as Error).message).not.toMatch(/Zq9v|W7kX|secret/);
    }
  });

  it("a control token with a control character inside is refused naming the variable", () => {
    const parse = () => parseEmulatorArgs({}, { CPCTL_EMULATOR_CONTROL_TOKEN: "Zq9v\u0007W7kX" });
    expect(parse).toThrow(/^CPCTL_EMULATOR_CONTROL_TOKEN must be/);
  });
});
