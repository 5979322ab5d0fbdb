// Pages in parallel (docs/performance.md "Pages in parallel"): `deploy list --all -o ndjson`
// of 10,000 deployments (100 pages of 100) with 50 ms added to every page by the emulator's
// latency fault, with the default window of pages asked ahead (src/api/pages.ts) against
// CPCTL_PAGE_WINDOW=1 (one page at a time: the floor), alternating. The fault is added for
// this figure only and cleared after it: the other figures share the emulator.
import http from "node:http";
import { alternate, capture, command, median } from "./measure.mjs";
import { formatMs } from "./report.mjs";

export const PAGE_LATENCY_MS = 50;
export const PAGES_GOAL = 0.3;

/**
 * { emulatorUrl, argv: [node, bin], env (pointing at the 10k tenant), cwd, count, runs }
 * Returns one row.
 */
export async function pagesRow({ emulatorUrl, argv, env, cwd, count, runs }) {
  const figure = `--all -o ndjson ${count / 1000}k, ${PAGE_LATENCY_MS} ms a page: pages ahead vs 1`;
  const goal = `<= ${PAGES_GOAL.toFixed(2)}x`;
  const list = [...argv, "deploy", "list", "--all", "-o", "ndjson"];
  const serial = command("CPCTL_PAGE_WINDOW=1", list, { env: { ...env, CPCTL_PAGE_WINDOW: "1" }, cwd });
  const windowed = command("default window", list, { env: withoutWindow(env), cwd });
  process.stdout.write(
    `timing deploy list --all (${count.toLocaleString("en")}) with ${PAGE_LATENCY_MS} ms a page, default window vs CPCTL_PAGE_WINDOW=1 (${runs} runs) ... `,
  );
  try {
    await control(emulatorUrl, "POST", "/_emulator/faults", {
      method: "GET",
      path: "/v2/deployments",
      latency_ms: PAGE_LATENCY_MS,
      count: 1_000_000,
    });
    try {
      for (const cmd of [serial, windowed]) {
        const result = capture(cmd, 120_000);
        const lines = result.code === 0 ? result.stdout.split("\n").filter(Boolean).length : -1;
        if (lines !== count)
          throw new Error(
            `${cmd.label}: should exit 0 and print ${count} lines; got exit ${result.code ?? result.signal}, ${lines} lines: ${result.stderr.trim().split("\n")[0] ?? ""}`,
          );
      }
      const [floorMs, subjectMs] = alternate([serial, windowed], { runs, warmup: 1, timeoutMs: 120_000 });
      const ratio = median(subjectMs) / median(floorMs);
      console.log(`${formatMs(median(subjectMs))} vs ${formatMs(median(floorMs))}`);
      return {
        figure,
        median: formatMs(median(subjectMs)),
        floor: `${formatMs(median(floorMs))} (CPCTL_PAGE_WINDOW=1)`,
        ratio: `${ratio.toFixed(2)}x`,
        goal,
        pass: ratio <= PAGES_GOAL,
        raw: { floorMs, subjectMs },
      };
    } finally {
      await control(emulatorUrl, "DELETE", "/_emulator/faults");
    }
  } catch (error) {
    console.log("failed");
    return { figure, goal, pass: null, note: error.message.split("\n")[0] };
  }
}

function withoutWindow(env) {
  const copy = { ...env };
  delete copy.CPCTL_PAGE_WINDOW;
  return copy;
}

/** An emulator control call (no credentials: the bench's emulator has no --api-key). */
function control(baseUrl, method, path, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${baseUrl}${path}`,
      { method, headers: { "Content-Type": "application/json" }, agent: false },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("error", reject);
        response.on("end", () =>
          response.statusCode >= 200 && response.statusCode < 300
            ? resolve(text)
            : reject(new Error(`${method} ${path}: ${response.statusCode} ${text.slice(0, 300)}`)),
        );
      },
    );
    request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    request.on("error", reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
