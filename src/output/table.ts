// A table on a terminal, written as its rows arrive: `deploy list --all` over 10,000
// deployments shows its first page at once and holds one page at a time, however long the
// list. The columns' widths come from the header, the first page (or the first SAMPLE_ROWS
// rows) and the terminal's width, and stay fixed after that: a later value longer than its
// column is shortened with an ellipsis (its whole value is in every other format). Laying
// out all the rows first, as a box-drawing table library does, costs time and memory that
// grow faster than the list (measured when this was written: the git history of
// docs/performance.md has the figures; the bench's table rows hold it).
//
// The cells come in as text made visible (safe-text.ts) on one line each; this module only
// measures, shortens and pads them. No borders: columns are separated by two spaces, as
// `kubectl get` and `gh` print theirs, so a row is one line and a table can end anywhere.
import { displayWidth, padEnd, shorten } from "./text-width.js";

/** Rows that decide the widths when no page boundary comes first (an --all page is 100). */
export const SAMPLE_ROWS = 100;

/**
 * The narrowest a column is made before the terminal is known to be too narrow for any
 * sensible table: 8 characters and the ellipsis (an ID's first 8 characters, as `deploy
 * wait` shows a revision), or the header's width when that is wider.
 */
export const FLOOR = 9;

const GAP = "  ";

/** Pending output is written in one piece at a page's end, or once it is this long. */
const PENDING_CHARS = 64 * 1024;

/** The width a terminal is assumed to have when it does not say (some CI terminals). */
export const DEFAULT_TERMINAL_WIDTH = 80;

export interface TableColumn {
  header: string;
  /**
   * An ID users copy: shown whole, or (when the terminal is too narrow) straight at its
   * floor, its first characters and an ellipsis; never cut in the middle, where it would be
   * neither whole nor short.
   */
  whole?: boolean;
  /**
   * A column a narrow terminal may leave out: 1 goes first, then 2, ... Columns without one
   * (the name, the status, the ID) stay, shortened, until even their headers do not fit.
   */
  dropRank?: number;
}

export interface TableOptions {
  /** The terminal's width in columns. */
  width: number;
  /** Whether the header is written bold (the printer's colour decision). */
  color: boolean;
  /** What an empty table writes instead of a header: "No deployments." */
  empty: string;
}

export class TerminalTable {
  /** Rows kept until the widths are fixed; null after. */
  private sample: string[][] | null = [];
  /** A column's width; null for a column the terminal has no room for. */
  private widths: (number | null)[] = [];
  /** The widths of the columns shown. */
  private shownWidths: number[] = [];
  private pending = "";
  private rows = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly columns: readonly TableColumn[],
    private readonly options: TableOptions,
  ) {}

  /** One row: a cell a column, each already visible and on one line. */
  row(cells: string[]): void {
    this.rows++;
    if (this.sample) {
      this.sample.push(cells);
      if (this.sample.length >= SAMPLE_ROWS) this.start();
      return;
    }
    this.pending += this.line(cells);
    if (this.pending.length >= PENDING_CHARS) this.writePending();
  }

  /**
   * The end of a page: the table starts (widths from the rows so far) if it has not, and
   * what is pending is written, so a page is on the terminal before the next is asked for.
   */
  flush(): void {
    if (this.sample && this.sample.length > 0) this.start();
    this.writePending();
  }

  /** The last row is in: an empty table says so. */
  end(): void {
    if (this.rows === 0) {
      this.write(`${this.options.empty}\n`);
      return;
    }
    this.flush();
  }

  /** Fixes the widths from the sample, then writes the header and the sample's rows. */
  private start(): void {
    const sample = this.sample!;
    this.sample = null;
    const natural = this.columns.map((column) => displayWidth(column.header));
    for (const cells of sample)
      for (let i = 0; i < natural.length; i++)
        natural[i] = Math.max(natural[i]!, displayWidth(cells[i] ?? ""));
    this.widths = fitWidths(
      this.columns.map((column, i) => ({
        natural: natural[i]!,
        floor: Math.min(natural[i]!, Math.max(FLOOR, displayWidth(column.header))),
        header: displayWidth(column.header),
        whole: column.whole === true,
        dropRank: column.dropRank,
      })),
      this.options.width,
    );
    this.shownWidths = this.widths.filter((width) => width !== null);
    const header = this.line(this.columns.map((column) => column.header));
    // Bold and back (SGR 1 and 22), as picocolors writes them; nothing to load for two codes.
    this.pending += this.options.color ? `\x1b[1m${header.slice(0, -1)}\x1b[22m\n` : header;
    for (const cells of sample) this.pending += this.line(cells);
  }

  private line(cells: readonly string[]): string {
    const shown: string[] = [];
    this.widths.forEach((width, i) => {
      if (width !== null) shown.push(shorten(cells[i] ?? "", width));
    });
    const last = shown.length - 1;
    // The last column is not padded: no trailing blanks to wrap on a terminal's edge.
    return `${shown.map((cell, i) => (i === last ? cell : padEnd(cell, this.shownWidths[i]!))).join(GAP)}\n`;
  }

  private writePending(): void {
    if (this.pending === "") return;
    this.write(this.pending);
    this.pending = "";
  }
}

export interface ColumnFit {
  /** The widest of the header and the sample's values. */
  natural: number;
  /** The narrowest it is made while there is room for every column kept at its floor. */
  floor: number;
  /** The header's width: a column is never narrower (a header is never cut to "…"), or it goes. */
  header: number;
  /** Whole or at its floor (an ID), nothing in between. */
  whole: boolean;
  /** See TableColumn.dropRank. */
  dropRank?: number;
}

/**
 * The columns' widths on a terminal `width` columns wide, two spaces apart; null for a column
 * left out. As wide as their values when that fits. Otherwise, until the table fits:
 *  1. IDs go to their floor (the first characters and "…": still a prefix cpctl accepts),
 *     from the right;
 *  2. the columns a narrow terminal may leave out (SOURCE, COMMIT, times, other IDs) shrink
 *     to their floors, and then go, in their drop order;
 *  3. the others (name, status) shrink to their floors, then to their headers' width, from
 *     the right, the first column last;
 *  4. on a terminal too narrow even for that, columns go from the right, and the first one
 *     alone is cut to the width.
 * Width freed beyond the need goes back to the columns cut, from the left.
 */
export function fitWidths(columns: readonly ColumnFit[], width: number): (number | null)[] {
  const widths: (number | null)[] = columns.map((column) => column.natural);
  const excess = () => {
    let used = 0;
    let shown = 0;
    for (const w of widths) {
      if (w === null) continue;
      used += w;
      shown++;
    }
    return used + GAP.length * Math.max(0, shown - 1) - width;
  };
  if (excess() <= 0) return widths;
  const fromRight = columns.map((_, i) => columns.length - 1 - i);
  const droppable = columns
    .map((column, i) => ({ rank: column.dropRank, i }))
    // The first column (the name) stays whatever it says.
    .filter((entry): entry is { rank: number; i: number } => entry.rank !== undefined && entry.i > 0)
    .sort((a, b) => a.rank - b.rank)
    .map((entry) => entry.i);
  const kept = fromRight.filter((i) => !droppable.includes(i));
  const cut = (i: number, to: number) => {
    const current = widths[i];
    if (current === null || current === undefined || excess() <= 0) return;
    const room = current - to;
    if (room > 0) widths[i] = current - (columns[i]!.whole ? room : Math.min(room, excess()));
  };

  for (const i of fromRight) if (columns[i]!.whole) cut(i, columns[i]!.floor);
  for (const i of droppable) cut(i, columns[i]!.floor);
  for (const i of droppable) if (excess() > 0) widths[i] = null;
  for (const i of kept) cut(i, columns[i]!.floor);
  for (const i of kept) if (!columns[i]!.whole) cut(i, Math.min(columns[i]!.floor, columns[i]!.header));
  for (const i of fromRight) if (i > 0 && excess() > 0) widths[i] = null;
  if (excess() > 0) widths[0] = Math.max(1, width);

  for (let i = 0; i < columns.length && excess() < 0; i++) {
    const current = widths[i];
    if (current === null || current === undefined) continue;
    const missing = columns[i]!.natural - current;
    if (missing <= 0 || (columns[i]!.whole && missing > -excess())) continue;
    widths[i] = current + Math.min(missing, -excess());
  }
  return widths;
}
