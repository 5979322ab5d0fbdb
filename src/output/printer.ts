// Renders results on stdout in the chosen format. Only results go to stdout; everything else
// goes to stderr through the context's logger.
import type { OutStream } from "../io.js";
import { maskSecretValues } from "../secrets.js";
import type { OutputFormat } from "./format.js";

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

export interface PrinterOptions {
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
        return this.line(JSON.stringify(value, null, 2));
      case "ndjson":
        return this.line(JSON.stringify(value));
      case "yaml":
        return this.yaml(value);
      case "id":
        return this.line(view.id(item));
      case "table": {
        const rows = (view.details ?? columnsAsDetails(view.columns))(value).map(([label, v]) => [
          label,
          cell(v),
        ]);
        return this.table(null, rows);
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
        if (format === "json")
          this.out.write(`${count === 0 ? "[\n" : ",\n"}${indent(JSON.stringify(value, null, 2))}`);
        else if (format === "ndjson") this.out.write(`${JSON.stringify(value)}\n`);
        else if (format === "id") this.out.write(`${view.id(item)}\n`);
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
            buffered.map((item) => view.columns.map((c) => cell(c.value(item)))),
          );
        }
      },
    };
  }

  /** A value that has no view (wait's verdict, a dry-run body): JSON unless yaml was asked. */
  async value(value: unknown, text?: () => string): Promise<void> {
    const safe = this.safe(value);
    if (this.options.format === "yaml") return this.yaml(safe);
    if (this.options.format === "ndjson") return this.line(JSON.stringify(safe));
    if (this.options.format === "table" && text) return this.line(text());
    return this.line(JSON.stringify(safe, null, 2));
  }

  line(text: string): void {
    this.out.write(`${text}\n`);
  }

  private async yaml(value: unknown): Promise<void> {
    const { stringify } = await import("yaml");
    this.out.write(stringify(value, { lineWidth: 0 }));
  }

  private async table(headers: string[] | null, rows: string[][]): Promise<void> {
    if (!this.out.isTTY) {
      // Off a terminal: tab-separated, no header, no truncation, no colour (grep/cut friendly).
      for (const row of rows) this.out.write(`${row.map(tsvCell).join("\t")}\n`);
      return;
    }
    this.out.write(`${await renderBoxTable(headers, rows, this.options.color)}\n`);
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

function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function tsvCell(value: unknown): string {
  return cell(value).replace(/[\t\n\r]/g, " ");
}

function indent(text: string): string {
  return text.replace(/^/gm, "  ");
}
