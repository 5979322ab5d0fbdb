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

const columnFit = (
  natural: number,
  options: { whole?: boolean; dropRank?: number; header?: number } = {},
): ColumnFit => {
  const header = Math.min(natural, options.header ?? 2);
  return {
    natural,
    floor: Math.min(natural, Math.max(9, header)),
    header,
    whole: options.whole ?? false,
    dropRank: options.dropRank,
  };
};
const id = (dropRank?: number) => columnFit(36, { whole: true, dropRank });

describe("fitWidths", () => {
  test("columns as wide as their values when the terminal has room", () => {
    expect(fitWidths([columnFit(10), columnFit(20), columnFit(5)], 44)).toEqual([10, 20, 5]);
  });

  test("IDs shorten first, to their floor, whole or nothing in between", () => {
    // NAME, STATUS, ID, SOURCE: the ID gives way before anything is cut.
    expect(fitWidths([columnFit(12), columnFit(8), id(), columnFit(18, { dropRank: 1 })], 60)).toEqual([
      12, 8, 9, 18,
    ]);
    // Room for the ID whole once the source is cut a little: it stays whole.
    expect(fitWidths([columnFit(12), columnFit(8), id(), columnFit(18, { dropRank: 1 })], 80)).toEqual([
      12, 8, 36, 18,
    ]);
  });

  test("then the columns that may go shrink, and go, in their order, before a name or status is cut", () => {
    const columns = [
      columnFit(24), // NAME
      columnFit(36), // STATUS: "READY (latest revision BUILD_FAILED)"
      id(), // ID
      columnFit(18, { dropRank: 3 }), // SOURCE
      columnFit(7, { dropRank: 4, header: 7 }), // UPDATED
      id(2), // LATEST REV
      id(1), // ACTIVE REV
    ];
    expect(fitWidths(columns, 102)).toEqual([24, 36, 9, 18, 7, null, null]);
    expect(fitWidths(columns, 100)).toEqual([24, 36, 9, 16, 7, null, null]);
    expect(fitWidths(columns, 90)).toEqual([24, 36, 9, null, 7, null, null]);
    // Only then is the status (the rightmost of the others) cut.
    expect(fitWidths(columns, 70)).toEqual([24, 33, 9, null, null, null, null]);
  });

  test("the rest shrink from the right, the first column last, never below their header", () => {
    const columns = [columnFit(30, { header: 4 }), columnFit(20, { header: 6 }), id()];
    expect(fitWidths(columns, 40)).toEqual([18, 9, 9]);
    expect(fitWidths(columns, 25)).toEqual([6, 6, 9]);
  });

  test("a terminal too narrow even for the headers: columns go from the right, the first one stays", () => {
    const columns = [columnFit(30, { header: 4 }), columnFit(20, { header: 6 }), id()];
    expect(fitWidths(columns, 18)).toEqual([10, 6, null]);
    expect(fitWidths(columns, 3)).toEqual([3, null, null]);
  });

  test("the columns kept fit the width, none below its header, whenever the first column fits", () => {
    const columns = fc.array(
      fc
        .record({
          natural: fc.integer({ min: 1, max: 80 }),
          header: fc.integer({ min: 1, max: 12 }),
          whole: fc.boolean(),
          dropRank: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        })
        .map(({ natural, header, whole, dropRank }) =>
          columnFit(Math.max(natural, header), { header, whole, dropRank }),
        ),
      { minLength: 1, maxLength: 9 },
    );
    fc.assert(
      fc.property(columns, fc.integer({ min: 1, max: 300 }), (cols, width) => {
        const widths = fitWidths(cols, width);
        const shown = widths.filter((w): w is number => w !== null);
        const total = shown.reduce((a, b) => a + b, 0) + 2 * (shown.length - 1);
        expect(total).toBeLessThanOrEqual(width);
        expect(widths[0]).not.toBeNull();
        widths.forEach((w, i) => {
          if (w === null) return;
          expect(w).toBeLessThanOrEqual(cols[i]!.natural);
          if (i > 0 || cols[0]!.header <= width) expect(w).toBeGreaterThanOrEqual(cols[i]!.header);
        });
        if (cols.reduce((a, c) => a + c.natural, 0) + 2 * (cols.length - 1) <= width)
          expect(widths).toEqual(cols.map((c) => c.natural));
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
