import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type ColumnFit, fitWidths, SAMPLE_ROWS, type TableColumn, TerminalTable } from "./table.js";
import { displayWidth } from "./text-width.js";

function capture(columns: TableColumn[], width: number, color = false) {
  const writes: string[] = [];
  const table = new TerminalTable((text) => writes.push(text), columns, {
    width,
    color,
    empty: "No things.",
  });
  return { table, writes, text: () => writes.join("") };
}

const columnFit = (natural: number, floor = Math.min(natural, 9), whole = false): ColumnFit => ({
  natural,
  floor,
  whole,
});

describe("fitWidths", () => {
  test("columns as wide as their values when the terminal has room", () => {
    expect(fitWidths([columnFit(10), columnFit(20), columnFit(5)], 40)).toEqual([10, 20, 5]);
  });

  test("the rightmost columns give up width first, down to their floor; the first is cut last", () => {
    expect(fitWidths([columnFit(30), columnFit(20), columnFit(20)], 60)).toEqual([30, 20, 10]);
    expect(fitWidths([columnFit(30), columnFit(20), columnFit(20)], 50)).toEqual([30, 11, 9]);
    expect(fitWidths([columnFit(30), columnFit(20), columnFit(20)], 40)).toEqual([22, 9, 9]);
  });

  test("an ID is whole or at its floor, and the width it frees beyond the need goes back", () => {
    // Room enough once the last column is cut a little: the ID stays whole.
    expect(fitWidths([columnFit(15), columnFit(36, 9, true), columnFit(18)], 63)).toEqual([15, 36, 12]);
    // Not enough: the ID goes to its floor (9) rather than to 26, where it would be neither whole
    // nor short, and the width it freed beyond the need goes back to the column cut before it.
    expect(fitWidths([columnFit(15), columnFit(36, 9, true), columnFit(18)], 50)).toEqual([15, 9, 18]);
  });

  test("a terminal too narrow for the floors: columns shrink further from the right, to one character", () => {
    expect(fitWidths([columnFit(20), columnFit(20), columnFit(20)], 12)).toEqual([9, 2, 1]);
    expect(fitWidths([columnFit(20), columnFit(20), columnFit(20)], 3)).toEqual([1, 1, 1]);
  });

  test("the widths add up to the room there is, whenever one character a column fits", () => {
    const columns = fc.array(
      fc
        .record({ natural: fc.integer({ min: 0, max: 80 }), whole: fc.boolean() })
        .map(({ natural, whole }) => columnFit(natural, Math.min(natural, 9), whole)),
      { minLength: 1, maxLength: 9 },
    );
    fc.assert(
      fc.property(columns, fc.integer({ min: 0, max: 300 }), (cols, available) => {
        const widths = fitWidths(cols, available);
        const total = widths.reduce((a, b) => a + b, 0);
        const natural = cols.reduce((a, c) => a + c.natural, 0);
        if (natural <= available) expect(widths).toEqual(cols.map((c) => c.natural));
        else if (available >= cols.filter((c) => c.natural > 0).length)
          expect(total).toBeLessThanOrEqual(available);
        widths.forEach((w, i) => {
          expect(w).toBeLessThanOrEqual(cols[i]!.natural);
          expect(w).toBeGreaterThanOrEqual(Math.min(1, cols[i]!.natural));
        });
      }),
    );
  });
});

describe("TerminalTable", () => {
  const columns = [{ header: "NAME" }, { header: "STATUS" }, { header: "ID", whole: true }];

  test("a header, then the rows, columns two spaces apart, the last one not padded", () => {
    const { table, text } = capture(columns, 80);
    table.row(["alpha", "READY", "0f0f0f0f-0000-4000-8000-000000000001"]);
    table.row(["beta-longer", "-", "0f0f0f0f-0000-4000-8000-000000000002"]);
    table.end();
    expect(text()).toBe(
      [
        "NAME         STATUS  ID",
        "alpha        READY   0f0f0f0f-0000-4000-8000-000000000001",
        "beta-longer  -       0f0f0f0f-0000-4000-8000-000000000002",
        "",
      ].join("\n"),
    );
  });

  test("fits a narrow terminal: every line within its width, long values shortened", () => {
    const { table, text } = capture(columns, 30);
    table.row(["a-deployment-with-a-long-name", "READY", "0f0f0f0f-0000-4000-8000-000000000001"]);
    table.end();
    const lines = text().trimEnd().split("\n");
    expect(lines).toEqual(["NAME         STATUS  ID", "a-deployme…  READY   0f0f0f0f…"]);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(30);
  });

  test("an empty table says so instead of a header", () => {
    const { table, text } = capture(columns, 80);
    table.flush();
    table.end();
    expect(text()).toBe("No things.\n");
  });

  test("widths come from the first page and stay: a longer value later is shortened", () => {
    const { table, writes, text } = capture(columns, 80);
    table.row(["short", "READY", "0f0f0f0f-0000-4000-8000-000000000001"]);
    expect(writes).toEqual([]); // the first page decides the widths
    table.flush();
    expect(writes).toHaveLength(1); // ... and is written at its end, before the next page
    table.row([
      "a-much-longer-name",
      "READY (latest revision BUILD_FAILED)",
      "0f0f0f0f-0000-4000-8000-000000000002",
    ]);
    table.flush();
    table.end();
    expect(text().split("\n")).toEqual([
      "NAME   STATUS  ID",
      "short  READY   0f0f0f0f-0000-4000-8000-000000000001",
      "a-mu…  READY…  0f0f0f0f-0000-4000-8000-000000000002",
      "",
    ]);
  });

  test("without a page's end, the first SAMPLE_ROWS rows decide the widths", () => {
    const { table, writes, text } = capture([{ header: "N" }], 80);
    for (let i = 0; i < SAMPLE_ROWS - 1; i++) table.row([String(i)]);
    expect(writes).toEqual([]);
    table.row([String(SAMPLE_ROWS - 1)]);
    table.row(["a wider value"]);
    table.flush();
    expect(text().split("\n")).toHaveLength(SAMPLE_ROWS + 3); // header, rows, the last line feed
    expect(text()).toContain("\na…\n");
  });

  test("bold header only when colour is on; rows never coloured", () => {
    const on = capture(columns, 80, true);
    on.table.row(["alpha", "READY", "x"]);
    on.table.end();
    expect(on.text()).toBe("\x1b[1mNAME   STATUS  ID\x1b[22m\nalpha  READY   x\n");
    const off = capture(columns, 80, false);
    off.table.row(["alpha", "READY", "x"]);
    off.table.end();
    expect(off.text()).not.toContain("\x1b");
  });

  test("every line fits whatever the values, once one character a column and the gaps fit", () => {
    const cell = fc
      .string({ unit: "grapheme", maxLength: 40 })
      .map((s) => s.replace(/[\n\r\t\x00-\x1f\x7f]/g, " "));
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 6 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.array(fc.array(cell, { minLength: n, maxLength: n }), { maxLength: 12 }),
            ),
          ),
        fc.integer({ min: 16, max: 160 }),
        ([n, rows], width) => {
          const cols = Array.from({ length: n }, (_, i) => ({ header: `C${i}`, whole: i === 1 }));
          const { table, text } = capture(cols, width);
          rows.forEach((row, i) => {
            table.row(row);
            if (i === 3) table.flush();
          });
          table.end();
          const lines = text().slice(0, -1).split("\n");
          expect(lines).toHaveLength(rows.length === 0 ? 1 : rows.length + 1);
          for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(width);
        },
      ),
    );
  });
});
