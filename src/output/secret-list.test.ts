import { describe, expect, it } from "vitest";
import { secretRows, secretView } from "./secret-list.js";

describe("secretRows", () => {
  it("secrets, then references, every key in every row", () => {
    const rows = secretRows({
      secrets: [{ name: "A", value: "****" }],
      secret_references: [{ name: "R", secret_name: "db", secret_key: "url" }],
    });
    expect(rows).toEqual([
      { name: "A", source: "secret", value: "****", secret_name: null, secret_key: null },
      { name: "R", source: "reference", value: null, secret_name: "db", secret_key: "url" },
    ]);
    expect(rows.map((row) => secretView.columns.map((column) => column.value(row)))).toEqual([
      ["A", "secret", "****"],
      ["R", "reference", "db:url"],
    ]);
  });

  it("no secrets, or null lists: no rows; a value the server withheld stays null", () => {
    expect(secretRows({ secrets: [], secret_references: null })).toEqual([]);
    const withheld = { name: "A", value: null as unknown as string };
    expect(secretRows({ secrets: [withheld] })[0]!.value).toBeNull();
  });
});
