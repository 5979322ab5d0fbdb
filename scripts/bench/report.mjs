// The benchmark's table: figure, median, floor, ratio, goal, result. Misses are marked so
// that they cannot be overlooked; the process still exits 0 (the numbers are the product).

export function formatMs(ms) {
  if (!Number.isFinite(ms)) return "-";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

export function formatMb(kb) {
  return Number.isFinite(kb) ? `${(kb / 1024).toFixed(1)} MB` : "-";
}

/**
 * rows: { figure, median, floor, ratio, goal, pass: true|false|null|"info", note? }; pass
 * null is "not measured" (an error, shown with its note); "info" is a figure without a goal.
 */
export function renderTable(rows) {
  const header = ["figure", "median", "floor", "ratio", "goal", "result"];
  const cells = rows.map((row) => [
    row.figure,
    row.median ?? "-",
    row.floor ?? "-",
    row.ratio ?? "-",
    row.goal ?? "-",
    row.pass === true ? "pass" : row.pass === false ? "MISS <<<" : row.pass === "info" ? "-" : "ERROR <<<",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => String(c[i]).length)));
  const line = (values) =>
    `| ${values.map((v, i) => (i === 0 ? String(v).padEnd(widths[i]) : String(v).padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...cells.map(line)].join("\n");
}

export function summary(rows) {
  const goals = rows.filter((r) => r.pass !== "info");
  const missed = goals.filter((r) => r.pass === false);
  const errors = goals.filter((r) => r.pass === null);
  const met = goals.length - missed.length - errors.length;
  const lines = [`${met} of ${goals.length} goals met.`];
  for (const r of missed)
    lines.push(
      `MISSED: ${r.figure}: ${r.ratio ?? r.median} against a goal of ${r.goal}${r.note ? ` (${r.note})` : ""}`,
    );
  for (const r of errors) lines.push(`NOT MEASURED: ${r.figure}: ${r.note ?? "error"}`);
  return lines.join("\n");
}
