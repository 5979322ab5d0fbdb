// jsonText: the exact value, valid UTF-8 (lone surrogates become U+FFFD, in keys too) and no
// raw character a terminal acts on.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonText } from "./encode.js";

const RAW_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("jsonText", () => {
  it("replaces lone surrogates in values and in keys, at any depth", () => {
    const value = { "a\ud800": "b\udc00", list: [{ "\udbff": "ok \ud83d\ude00" }] };
    expect(JSON.parse(jsonText(value))).toEqual({
      "a\ufffd": "b\ufffd",
      list: [{ "\ufffd": "ok \ud83d\ude00" }],
    });
  });

  it("writes terminal-active characters as escapes that read back as themselves", () => {
    const text = jsonText({ name: "a\u202eb\u0085c\u007f" });
    expect(text).not.toMatch(RAW_UNSAFE);
    expect(JSON.parse(text)).toEqual({ name: "a\u202eb\u0085c\u007f" });
  });

  it("property: reads back as the same value when its strings are well formed; never a raw unsafe character", () => {
    // JSON.stringify writes a lone surrogate, and only that, as a \\udXXX escape.
    const wellFormed = (v: unknown): boolean => !/\\ud[89a-f]/i.test(JSON.stringify(v));
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = jsonText(value);
        expect(text).not.toMatch(RAW_UNSAFE);
        if (wellFormed(value)) expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
