// Renders results on stdout in the chosen format. Only results go to stdout; everything else
// goes to stderr through the context's logger. What a server or a file gave is shown with its
// control characters made visible in table and text output (safe-text.ts), and escaped in
// json, ndjson and yaml (encode.ts), which keep the exact value.
import type { OutStream } from "../io.js";
import { maskSecretValues } from "../secrets.js";
import { jsonText, yamlText } from "./encode.js";
import type { OutputFormat } from "./format.js";
import { visible, visibleLines } from "./safe-text.js";

export interface Column<T> {
  header: string;
  value: (item: T) => string | number | boolean | null | undefined;
}

/** How one kind of resource is shown: its ID, its list columns and its detail rows. */
export interface View<T> {
  id: (item: T) => string;
  columns: Column<T>[];
  details?: (item: T) => [label: string, value: unknown][];
}

interface PrinterOptions {
  format: OutputFormat;
  showSecrets: boolean;
  color: boolean;
}

export class Printer {
  constructor(
    private readonly out: OutStream,
    readonly options: PrinterOptions,
  ) {}

  private safe<T>(value: T): T {
    return this.options.showSecrets ? value : maskSecretValues(value);
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
      case "table": {
        return this.table(null, (view.details ?? columnsAsDetails(view.columns))(value));
      }
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
   * memory: json streams the array, ndjson/id/tab-separated write a line an item. Only the
   * terminal table and yaml need every row before printing.
   */
  listWriter<T>(view: View<T>): { push(item: T): Promise<void>; end(): Promise<void> } {
    const { format } = this.options;
    const buffered: T[] = [];
    let count = 0;
    const tableOnTerminal = format === "table" && this.out.isTTY;
    return {
      push: async (item: T) => {
        const value = this.safe(item);
        if (format === "json") this.out.write(`${count === 0 ? "[\n" : ",\n"}${indent(jsonText(value, 2))}`);
        else if (format === "ndjson") this.out.write(`${jsonText(value)}\n`);
        else if (format === "id") this.out.write(`${visible(view.id(item))}\n`);
        else if (format === "table" && !tableOnTerminal)
          this.out.write(`${view.columns.map((c) => tsvCell(c.value(value))).join("\t")}\n`);
        else buffered.push(value);
        count++;
      },
      end: async () => {
        if (format === "json") this.out.write(count === 0 ? "[]\n" : "\n]\n");
        else if (format === "yaml") await this.yaml(buffered);
        else if (tableOnTerminal) {
          if (buffered.length === 0) return;
          await this.table(
            view.columns.map((c) => c.header),
            buffered.map((item) => view.columns.map((c) => c.value(item))),
          );
        }
      },
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
    this.out.write(`${visibleLines(text)}\n`);
  }

  /**
   * A line whose colour codes are the caller's own: every piece of data in it must already have
   * gone through `visible` (as deploy diff's lines do).
   */
  styledLine(text: string): void {
    this.out.write(`${text}\n`);
  }

  /** Output made safe by its encoder. */
  private write(text: string): void {
    this.out.write(`${text}\n`);
  }

  private async yaml(value: unknown): Promise<void> {
    this.out.write(await yamlText(value));
  }

  private async table(headers: string[] | null, rows: unknown[][]): Promise<void> {
    if (!this.out.isTTY) {
      // Off a terminal: tab-separated, no header, no truncation, no colour (grep/cut friendly).
      for (const row of rows) this.out.write(`${row.map(tsvCell).join("\t")}\n`);
      return;
    }
    const cells = rows.map((row) => row.map(cell));
    this.out.write(`${await renderBoxTable(headers, cells, this.options.color)}\n`);
  }
}

async function renderBoxTable(headers: string[] | null, rows: string[][], color: boolean): Promise<string> {
  // cli-table3 is loaded here only: it is not needed off a terminal.
  const { default: Table } = await import("cli-table3");
  const table = new Table({
    head: headers ?? [],
    style: { head: color ? ["bold"] : [], border: color ? ["grey"] : [], compact: true },
    chars: headers
      ? {}
      : {
          top: "",
          "top-mid": "",
          "top-left": "",
          "top-right": "",
          bottom: "",
          "bottom-mid": "",
          "bottom-left": "",
          "bottom-right": "",
          left: "",
          "left-mid": "",
          mid: "",
          "mid-mid": "",
          right: "",
          "right-mid": "",
          middle: "  ",
        },
  });
  table.push(...rows);
  return table.toString();
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
