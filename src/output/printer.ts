// Renders results on stdout in the chosen format. Only results go to stdout; everything else
// goes to stderr through the context's logger. What a server or a file gave is shown with its
// control characters made visible in table and text output (safe-text.ts), and escaped in
// json, ndjson and yaml (encode.ts), which keep the exact value.
import type { OutStream } from "../io.js";
import type { OutputFormat } from "../model/enums.js";
import { maskSecretValues } from "../secrets.js";
import { jsonText, yamlText } from "./encode.js";
import { relativeTime } from "./relative-time.js";
import { type Styled, styled, visible, writeText } from "./safe-text.js";
import { DEFAULT_TERMINAL_WIDTH, TerminalTable } from "./table.js";
import { displayWidth, padEnd } from "./text-width.js";
import { maskBeforeShowing, secretValuesIn } from "./workflow-commands.js";

export interface Column<T> {
  header: string;
  value: (item: T) => string | number | boolean | null | undefined;
  /**
   * What the value is, for a terminal table: "id", an ID users copy (shown whole, or on a
   * terminal too narrow for it, its first characters: never cut in the middle); "time", an
   * ISO 8601 time (shown relative, "3m ago"). Every other output keeps the value as it is.
   */
  kind?: "id" | "time";
}

/** How one kind of resource is shown: its ID, its list columns and its detail rows. */
export interface View<T> {
  id: (item: T) => string;
  /** The columns of a list, in the order of the tab-separated rows (scripts cut them by position). */
  columns: Column<T>[];
  /**
   * The order of the columns in a terminal table, by header, when it is not `columns`' own
   * (the name first). Headers not named keep their place after the ones named.
   */
  tableOrder?: readonly string[];
  /**
   * Headers of the columns a narrow terminal may leave out, the first to go first (SOURCE,
   * COMMIT, times). The others (name, status, ID) stay, shortened (table.ts says in what order).
   */
  dropOrder?: readonly string[];
  /** What a terminal shows for an empty list: "No deployments." */
  empty?: string;
  details?: (item: T) => [label: string, value: unknown][];
}

interface PrinterOptions {
  format: OutputFormat;
  showSecrets: boolean;
  color: boolean;
  /** The clock a terminal table's relative times count from (the context's); Date.now if not given. */
  now?: () => number;
}

/** A list written as it arrives (see Printer.listWriter). */
export interface ListWriter<T> {
  push(item: T): Promise<void>;
  /** The end of a page: a terminal table shows what it has (the first page fixes its widths). */
  flush(): void;
  end(): Promise<void>;
}

export class Printer {
  constructor(
    private readonly out: OutStream,
    readonly options: PrinterOptions,
  ) {}

  /**
   * `value` as a result shows it: its secret values (by the one rule of secrets.ts) masked,
   * or with --show-secrets as they are, GitHub Actions told to mask them in its log first.
   * For a result made from a resource's secrets (`secrets list`), made from what this returns.
   */
  shown<T>(value: T): T {
    return this.safe(value);
  }

  private safe<T>(value: T): T {
    if (!this.options.showSecrets) return maskSecretValues(value);
    maskBeforeShowing(this.out, () => secretValuesIn(value));
    return value;
  }

  /** One resource (get, create, patch). */
  async item<T>(item: T, view: View<T>): Promise<void> {
    const value = this.safe(item);
    switch (this.options.format) {
      case "json":
        return this.write(jsonText(value, 2));
      case "ndjson":
        return this.write(jsonText(value));
      case "yaml":
        return this.yaml(value);
      case "id":
        return this.write(visible(view.id(item)));
      case "table":
        return this.details((view.details ?? columnsAsDetails(view.columns))(value));
    }
  }

  /** A complete list (one page, or all pages already fetched). */
  async list<T>(items: T[], view: View<T>): Promise<void> {
    const writer = this.listWriter(view);
    for (const item of items) await writer.push(item);
    await writer.end();
  }

  /**
   * A list written as it arrives, so that `list --all` over many pages holds one page in
   * memory: json streams the array, yaml the sequence an item at a time, ndjson/id/
   * tab-separated write a line an item, and a terminal table starts with its first page
   * (table.ts). The caller calls flush() at the end of each page.
   */
  listWriter<T>(view: View<T>): ListWriter<T> {
    const { format } = this.options;
    const table = format === "table" && this.out.isTTY ? this.terminalTable(view) : null;
    let count = 0;
    return {
      push: async (item: T) => {
        const value = this.safe(item);
        if (format === "json") this.out.write(`${count === 0 ? "[\n" : ",\n"}${indent(jsonText(value, 2))}`);
        else if (format === "ndjson") this.out.write(`${jsonText(value)}\n`);
        else if (format === "id") this.out.write(`${visible(view.id(item))}\n`);
        // A sequence of one item is that item's "- ..." entry: the entries one after another
        // are the whole sequence, each made safe by the same encoder as a single value.
        else if (format === "yaml") this.out.write(await yamlText([value]));
        else if (table) table.push(value);
        else this.out.write(`${view.columns.map((c) => tsvCell(c.value(value))).join("\t")}\n`);
        count++;
      },
      flush: () => table?.flush(),
      end: async () => {
        if (format === "json") this.out.write(count === 0 ? "[]\n" : "\n]\n");
        else if (format === "yaml" && count === 0) this.out.write("[]\n");
        else table?.end();
      },
    };
  }

  /**
   * The rows of a terminal table: the view's columns in their terminal order, every value
   * visible, times relative to the moment the table starts (one "now" for every row).
   */
  private terminalTable<T>(view: View<T>) {
    const columns = terminalOrder(view);
    const now = (this.options.now ?? Date.now)();
    const table = new TerminalTable(
      (text) => this.out.write(text),
      columns.map((c) => {
        const drop = view.dropOrder?.indexOf(c.header) ?? -1;
        return { header: c.header, whole: c.kind === "id", dropRank: drop === -1 ? undefined : drop + 1 };
      }),
      {
        width: this.out.columns || DEFAULT_TERMINAL_WIDTH,
        color: this.options.color,
        empty: view.empty ?? "Nothing to list.",
      },
    );
    return {
      push: (item: T) => table.row(columns.map((c) => terminalCell(c, item, now))),
      flush: () => table.flush(),
      end: () => table.end(),
    };
  }

  /** A value that has no view (wait's verdict, a dry-run body): JSON unless yaml was asked. */
  async value(value: unknown, text?: () => string): Promise<void> {
    const safe = this.safe(value);
    if (this.options.format === "yaml") return this.yaml(safe);
    if (this.options.format === "ndjson") return this.write(jsonText(safe));
    if (this.options.format === "table" && text) return this.line(text());
    return this.write(jsonText(safe, 2));
  }

  /** A line of text (several, separated by line feeds), its control characters made visible. */
  line(text: string): void {
    writeText(this.out, `${text}\n`);
  }

  /** A line whose colour codes are the program's own, its data escaped when it was styled. */
  styledLine(text: Styled): void {
    writeText(this.out, styled`${text}\n`);
  }

  /** Output made safe by its encoder. */
  private write(text: string): void {
    this.out.write(`${text}\n`);
  }

  private async yaml(value: unknown): Promise<void> {
    this.out.write(await yamlText(value));
  }

  /**
   * One item's fields, a line each: tab-separated off a terminal (an object's fields as
   * `label.field` rows, its empty ones left out); on one, the labels padded to one width and
   * the values whole (a single item has room to show everything), and an object
   * (source_config and its resource_spec, listener_config) as indented `key: value` lines
   * under its label.
   */
  private details(rows: [label: string, value: unknown][]): void {
    if (!this.out.isTTY) {
      // Off a terminal: tab-separated, no header, no truncation, no colour (grep/cut friendly).
      for (const row of rows.flatMap(flattened)) this.out.write(`${row.map(tsvCell).join("\t")}\n`);
      return;
    }
    const width = Math.max(0, ...rows.map(([label]) => displayWidth(cell(label))));
    let text = "";
    for (const [label, value] of rows) {
      text += isPlainObject(value)
        ? `${cell(label)}\n${nestedLines(value, "  ")}`
        : `${padEnd(cell(label), width)}  ${cell(value)}\n`;
    }
    this.out.write(text);
  }
}

/** An object's non-empty fields as `label.field` rows; any other row as it is. */
function flattened([label, value]: [string, unknown]): [string, unknown][] {
  if (!isPlainObject(value)) return [[label, value]];
  return Object.entries(value)
    .filter(([, field]) => field !== null && field !== undefined)
    .map(([key, field]) => [`${label}.${key}`, field]);
}

/** An object as `key: value` lines, nested objects and lists of objects indented further; nulls left out. */
function nestedLines(object: Record<string, unknown>, indent: string): string {
  let text = "";
  for (const [key, value] of Object.entries(object)) {
    if (value === null || value === undefined) continue;
    const label = `${indent}${visible(key)}:`;
    if (isPlainObject(value)) text += `${label}\n${nestedLines(value, `${indent}  `)}`;
    else if (Array.isArray(value) && value.some(isPlainObject)) {
      text += `${label}\n`;
      for (const item of value) {
        const lines = isPlainObject(item)
          ? nestedLines(item, `${indent}    `)
          : `${indent}    ${cell(item)}\n`;
        text += `${indent}  - ${lines.trimStart()}`;
      }
    } else text += `${label} ${Array.isArray(value) ? value.map(cell).join(", ") : cell(value)}\n`;
  }
  return text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The view's columns in the order a terminal table shows them (View.tableOrder). */
function terminalOrder<T>(view: View<T>): Column<T>[] {
  if (!view.tableOrder) return view.columns;
  const named = view.tableOrder.flatMap((header) => view.columns.filter((c) => c.header === header));
  return [...named, ...view.columns.filter((c) => !named.includes(c))];
}

/** A terminal table's cell: as `cell`, a time relative to `now` ("3m ago"). */
function terminalCell<T>(column: Column<T>, item: T, now: number): string {
  const value = column.value(item);
  if (column.kind === "time" && typeof value === "string") return relativeTime(value, now) ?? cell(value);
  return cell(value);
}

function columnsAsDetails<T>(columns: Column<T>[]) {
  return (item: T): [string, unknown][] => columns.map((c) => [c.header, c.value(item)]);
}

/** A table cell: one line, every control character visible (a line feed would fake a row). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "object") return jsonText(value);
  return visible(String(value));
}

/** A tab-separated cell: tabs and line breaks become spaces, so that `cut -f` keeps working. */
function tsvCell(value: unknown): string {
  if (typeof value === "string") return cell(value.replace(/[\t\n\r]/g, " "));
  return cell(value);
}

function indent(text: string): string {
  return text.replace(/^/gm, "  ");
}
