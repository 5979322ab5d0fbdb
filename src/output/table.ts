// A table on a terminal, written as its rows arrive: `deploy list --all` over 10,000
// deployments shows its first page at once and holds one page at a time, however long the
// list. The columns' widths come from the header, the first page (or the first SAMPLE_ROWS
// rows) and the terminal's width, and stay fixed after that: a later value longer than its
// column is shortened with an ellipsis (its whole value is in every other format). Laying
// out all the rows first, as a box-drawing table library does, costs time and memory that
// grow faster than the list (measured: docs/performance.md, "Long lists").
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
  private widths: number[] = [];
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
    const available = this.options.width - GAP.length * (this.columns.length - 1);
    this.widths = fitWidths(
      this.columns.map((column, i) => ({
        natural: natural[i]!,
        floor: Math.min(natural[i]!, Math.max(FLOOR, displayWidth(column.header))),
        whole: column.whole === true,
      })),
      available,
    );
    const header = this.line(this.columns.map((column) => column.header));
    // Bold and back (SGR 1 and 22), as picocolors writes them; nothing to load for two codes.
    this.pending += this.options.color ? `\x1b[1m${header.slice(0, -1)}\x1b[22m\n` : header;
    for (const cells of sample) this.pending += this.line(cells);
  }

  private line(cells: readonly string[]): string {
    const last = this.widths.length - 1;
    let text = "";
    for (let i = 0; i <= last; i++) {
      const shown = shorten(cells[i] ?? "", this.widths[i]!);
      // The last column is not padded: no trailing blanks to wrap on a terminal's edge.
      text += i === last ? shown : padEnd(shown, this.widths[i]!) + GAP;
    }
    return `${text}\n`;
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
  /** The narrowest it is made while the terminal has room for every column's floor. */
  floor: number;
  /** Whole or at its floor (an ID), nothing in between. */
  whole: boolean;
}

/**
 * The columns' widths within `available` columns (the terminal's width less the gaps). As
 * wide as their values when that fits. Otherwise columns give up width from the right, the
 * last first, each down to its floor (a `whole` column straight to it), until the table
 * fits; width freed beyond the need goes back to the columns cut, from the left. The first
 * column (the name) is the last to be cut. A terminal too narrow for even the floors gets
 * columns cut further, from the right, down to one character (the ellipsis): every column
 * stays in sight, shortened, rather than some silently left out.
 */
export function fitWidths(columns: readonly ColumnFit[], available: number): number[] {
  const widths = columns.map((column) => column.natural);
  let excess = widths.reduce((sum, width) => sum + width, 0) - available;
  if (excess <= 0) return widths;
  for (let i = columns.length - 1; i >= 0 && excess > 0; i--) {
    const column = columns[i]!;
    const room = widths[i]! - column.floor;
    if (room <= 0) continue;
    const cut = column.whole ? room : Math.min(room, excess);
    widths[i]! -= cut;
    excess -= cut;
  }
  for (let i = 0; i < columns.length && excess < 0; i++) {
    if (columns[i]!.whole) continue;
    const back = Math.min(columns[i]!.natural - widths[i]!, -excess);
    widths[i]! += back;
    excess += back;
  }
  for (let i = columns.length - 1; i >= 0 && excess > 0; i--) {
    const cut = Math.min(Math.max(0, widths[i]! - 1), excess);
    widths[i]! -= cut;
    excess -= cut;
  }
  return widths;
}
