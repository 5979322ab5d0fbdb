import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_UPLOAD_BYTES } from "../model/enums.js";
import { formatBytes, parseSize } from "./size.js";

describe("parseSize", () => {
  it("reads bytes, binary and decimal units, in any case", () => {
    expect(parseSize("1234")).toBe(1234);
    expect(parseSize("100MiB")).toBe(DEFAULT_MAX_UPLOAD_BYTES);
    expect(parseSize("100m")).toBe(DEFAULT_MAX_UPLOAD_BYTES);
    expect(parseSize("1.5 KiB")).toBe(1536);
    expect(parseSize("2G")).toBe(2 * 1024 ** 3);
    expect(parseSize("20MB")).toBe(20_000_000);
    expect(parseSize("1kb")).toBe(1000);
    expect(parseSize("512b")).toBe(512);
  });

  it("refuses what is not a positive size", () => {
    for (const text of ["", "0", "-5", "ten", "5 TB", "5MiBs", "1e6", "0.1b"])
      expect(parseSize(text), text).toBeNull();
  });
});

describe("formatBytes", () => {
  it("uses binary units with at most one decimal", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1023 B");
    expect(formatBytes(1024)).toBe("1 KiB");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(DEFAULT_MAX_UPLOAD_BYTES)).toBe("100 MiB");
    expect(formatBytes(DEFAULT_MAX_UPLOAD_BYTES + 1)).toBe("100 MiB");
    expect(formatBytes(3.25 * 1024 ** 3)).toBe("3.3 GiB");
  });
});
