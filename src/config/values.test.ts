import { describe, expect, test } from "vitest";
import { checkValue, displayUrl, hasEnvReference, suggestKey } from "./values.js";

test("hasEnvReference: a reference, not an escaped one", () => {
  expect(hasEnvReference(`$\${env:A}`)).toBe(false);
  expect(hasEnvReference(`Bearer \${env:TOKEN}`)).toBe(true);
});

describe("checkValue", () => {
  test("accepts good values", () => {
    expect(checkValue("baseUrl", "https://api.example.com")).toBeNull();
    expect(checkValue("tenantId", "3f2b0c1e-7d4a-4b8e-9a61-0c2d3e4f5a6b")).toBeNull();
    expect(checkValue("tenantHeader", "X-Org-Id")).toBeNull();
    expect(checkValue("output", "ndjson")).toBeNull();
    expect(checkValue("confirm", true)).toBeNull();
    expect(checkValue("confirm", "false")).toBeNull();
    expect(checkValue("apiKey", "anything")).toBeNull();
  });

  test("says what is wrong with bad ones", () => {
    expect(checkValue("baseUrl", "api.example.com")).toMatch(/not a URL/);
    expect(checkValue("baseUrl", "ftp://x")).toMatch(/http:\/\/ or https:\/\//);
    expect(checkValue("tenantId", "acme")).toMatch(/not a tenant UUID/);
    expect(checkValue("tenantHeader", "X Tenant")).toMatch(/header name/);
    expect(checkValue("output", "xml")).toMatch(/table, json, yaml, ndjson, id/);
    expect(checkValue("confirm", "maybe")).toMatch(/true or false/);
    expect(checkValue("output", true)).toMatch(/must be a string/);
  });
});

test("suggestKey finds the key meant", () => {
  expect(suggestKey("base-url")).toBe("baseUrl");
  expect(suggestKey("APIKEY")).toBe("apiKey");
  expect(suggestKey("colour")).toBeUndefined();
});

test("displayUrl never shows a user or password", () => {
  expect(displayUrl("https://me:secret@api.example.com/base/?q=1")).toBe("https://api.example.com/base");
  expect(displayUrl("http://127.0.0.1:8124")).toBe("http://127.0.0.1:8124");
});
