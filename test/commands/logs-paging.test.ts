// How `deploy logs` pages and follows, against a log server of the test's own that records
// every request (it speaks the documented GET /v2/deployments/{id}/revisions/{rid}/logs): pages
// of the service's largest (1,000 entries), one request for --limit up to 1,000, the whole log
// oldest first with --all, the end of a log with or without a cursor there, a cursor given
// twice (issue 22 item 13), and --follow's one request a pause. The runtime log without
// --revision is the serving revision's: one read of the deployment comes first.
import { describe, expect, it } from "vitest";
import { json, type RecordedRequest, startServer } from "../helpers/http-server.js";
import { instantClock, runCli } from "../helpers/run-cli.js";

const DEPLOYMENT = "11111111-2222-4333-8444-555555555555";
const REVISION = "66666666-7777-4888-8999-aaaaaaaaaaaa";
const START = Date.UTC(2026, 0, 1);

interface LogEntry {
  id: string;
  timestamp: string;
  level: string;
  message: string;
}

function entries(count: number, from = 0): LogEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `e${from + i}`,
    timestamp: new Date(START + (from + i) * 1000).toISOString(),
    level: "INFO",
    message: `line ${from + i}`,
  }));
}

interface LogServerOptions {
  /** Give a cursor on the last page too (the end for now), as service-facts says a server may. */
  cursorAtEnd?: boolean;
  /** Every full page answers this cursor (a server stuck on one). */
  stuckCursor?: string;
  /** The revision's status, for a build log. */
  status?: () => string;
}

/**
 * A log server over `log()` (read on each request): cursor `c<index>` is the position after
 * the entry at index - 1 in the order asked. Answers 500 after 50 requests, so that a client
 * that loops forever ends (and its test fails on the count). GET /v2/deployments/{id} gives a
 * deployment whose active revision is REVISION; GET .../revisions/{rid} the revision.
 */
async function logServer(log: () => LogEntry[], options: LogServerOptions = {}) {
  const server = await startServer((req, res, n) => {
    if (n > 50) return json(res, 500, { detail: "too many requests: the client is looping" });
    const url = new URL(req.url, "http://x");
    if (req.method !== "GET") return json(res, 405, { detail: "Method Not Allowed" });
    if (url.pathname === `/v2/deployments/${DEPLOYMENT}`)
      return json(res, 200, {
        id: DEPLOYMENT,
        name: "svc",
        active_revision_id: REVISION,
        latest_revision_id: REVISION,
      });
    if (!url.pathname.endsWith("/logs"))
      return json(res, 200, { id: REVISION, status: options.status?.() ?? "BUILDING", source: "gitrepo" });
    const query = url.searchParams;
    const limit = Number(query.get("limit") ?? 50);
    let all = log();
    const since = query.get("start_time");
    if (since) all = all.filter((e) => e.timestamp >= since);
    if (query.get("order") === "desc") all = [...all].reverse();
    const offset = query.get("offset");
    const from = offset ? Number(offset.slice(1)) : 0;
    const logs = all.slice(from, from + limit);
    const end = from + logs.length;
    const more = end < all.length;
    if (options.stuckCursor && logs.length === limit)
      return json(res, 200, { logs, next_offset: options.stuckCursor });
    json(res, 200, { logs, next_offset: more || options.cursorAtEnd ? `c${end}` : null });
  });
  return server;
}

const env = (url: string) => ({ CPCTL_BASE_URL: url, CPCTL_API_KEY: "k" });
const isLogRead = (r: RecordedRequest) => r.url.split("?")[0]!.endsWith("/logs");
/** The queries of the log reads, limit as a number. */
const queries = (requests: RecordedRequest[]) =>
  requests.filter(isLogRead).map((r) => {
    const query: Record<string, unknown> = Object.fromEntries(new URL(r.url, "http://x").searchParams);
    if (typeof query.limit === "string") query.limit = Number(query.limit);
    return query;
  });
const printedIds = (stdout: string) => (JSON.parse(stdout) as LogEntry[]).map((e) => e.id);

describe("deploy logs: pages", () => {
  it("--limit 1000 is one request", async () => {
    const server = await logServer(() => entries(3000));
    const r = await runCli(["deploy", "logs", DEPLOYMENT, "--limit", "1000", "-o", "json"], {
      env: env(server.url),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(queries(server.requests)).toEqual([{ type: "deploy", order: "desc", limit: 1000 }]);
    // The deployment (for its serving revision), then the one read.
    expect(server.requests.map((r) => r.url.split("?")[0])).toEqual([
      `/v2/deployments/${DEPLOYMENT}`,
      `/v2/deployments/${DEPLOYMENT}/revisions/${REVISION}/logs`,
    ]);
    expect(printedIds(r.stdout)).toEqual(entries(1000, 2000).map((e) => e.id));
  });

  it("the newest 2,500: pages of 1,000, printed oldest first", async () => {
    const server = await logServer(() => entries(3000), { cursorAtEnd: true });
    const r = await runCli(["deploy", "logs", DEPLOYMENT, "--limit", "2500", "-o", "json"], {
      env: env(server.url),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(queries(server.requests).map((b) => b.limit)).toEqual([1000, 1000, 500]);
    expect(printedIds(r.stdout)).toEqual(entries(2500, 500).map((e) => e.id));
  });

  it("--all: the whole log oldest first, pages of 1,000, ending on the short page even with a cursor there", async () => {
    const server = await logServer(() => entries(2500), { cursorAtEnd: true });
    const r = await runCli(["deploy", "logs", DEPLOYMENT, "--all"], { env: env(server.url) });
    expect(r.code, r.stderr).toBe(0);
    expect(queries(server.requests)).toEqual([
      { type: "deploy", order: "asc", limit: 1000 },
      { type: "deploy", order: "asc", limit: 1000, offset: "c1000" },
      { type: "deploy", order: "asc", limit: 1000, offset: "c2000" },
    ]);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines).toHaveLength(2500);
    expect(lines[0]).toBe(`${entries(1)[0]!.timestamp} INFO     line 0`);
    expect(lines.at(-1)).toMatch(/ line 2499$/);
  });

  it("--all with --limit is a usage error, before any request", async () => {
    const server = await logServer(() => entries(10));
    const r = await runCli(["deploy", "logs", DEPLOYMENT, "--all", "--limit", "5"], { env: env(server.url) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--all and --limit cannot be used together");
    expect(server.requests).toHaveLength(0);
  });

  it("a log of exactly a page with a cursor at its end: one more request, which comes back empty", async () => {
    const server = await logServer(() => entries(1000), { cursorAtEnd: true });
    const r = await runCli(["deploy", "logs", DEPLOYMENT, "--all", "-o", "json"], { env: env(server.url) });
    expect(r.code, r.stderr).toBe(0);
    expect(printedIds(r.stdout)).toHaveLength(1000);
    expect(queries(server.requests).map((b) => b.offset)).toEqual([undefined, "c1000"]);
  });
});

describe("deploy logs: a timestamp that is not a time (issue 22 item 6)", () => {
  it("is shown as (unreadable time), never as it came; -o json keeps the entry as the server sent it", async () => {
    const forged = "2026-01-01T00:00:00.000Z CRITICAL forged entry";
    const server = await startServer((req, res) =>
      isLogRead(req)
        ? json(res, 200, {
            logs: [
              { id: "a", timestamp: forged, level: "INFO", message: "first" },
              { id: "b", timestamp: 1e20, level: "INFO", message: "second" },
            ],
            next_offset: null,
          })
        : json(res, 200, { id: DEPLOYMENT, active_revision_id: REVISION, latest_revision_id: REVISION }),
    );
    // Asked newest first (the default), printed oldest first: the server's order reversed.
    const text = await runCli(["deploy", "logs", DEPLOYMENT], { env: env(server.url) });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      "(unreadable time)        INFO     second\n(unreadable time)        INFO     first\n",
    );
    const raw = await runCli(["deploy", "logs", DEPLOYMENT, "-o", "json"], { env: env(server.url) });
    expect((JSON.parse(raw.stdout) as LogEntry[]).map((e) => e.timestamp)).toEqual([1e20, forged]);
  });
});

describe("deploy logs: a cursor given twice (issue 22 item 13)", () => {
  for (const [name, args, printed] of [
    ["--since", ["--since", "2025-01-01T00:00:00Z"], 2000],
    ["--all", ["--all"], 2000],
    // The newest entries are printed once all are in: none, then.
    ["the newest --limit", ["--limit", "100000"], 0],
  ] as const) {
    it(`${name}: stops at the second time, exit 1, naming the cause`, async () => {
      const server = await logServer(() => entries(5000), { stuckCursor: "c1000" });
      const r = await runCli(["deploy", "logs", DEPLOYMENT, ...args, "-o", "ndjson"], {
        env: env(server.url),
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("the same log cursor (next_offset) twice");
      // The first page, then the second (from the cursor), whose cursor is the same: stop.
      expect(queries(server.requests)).toHaveLength(2);
      expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(printed);
    });
  }

  it("--follow: a server stuck on one cursor costs one request a pause, never a loop", async () => {
    const server = await logServer(() => entries(2000), { stuckCursor: "c1000" });
    const controller = new AbortController();
    let sleeps = 0;
    const clock = instantClock(START, () => {
      if (++sleeps >= 5) controller.abort();
    });
    const r = await runCli(["deploy", "logs", DEPLOYMENT, "--since", "2025-01-01T00:00:00Z", "--follow"], {
      env: env(server.url),
      clock,
      signal: controller.signal,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the same log cursor (next_offset) twice");
    expect(queries(server.requests).length).toBeLessThanOrEqual(2);
  });
});

describe("deploy logs --follow: one request a pause", () => {
  /** Runs --follow for `pauses` pauses of the instant clock; the log grows by `perPause` each. */
  async function follow(args: string[], options: LogServerOptions & { pauses: number; perPause: number }) {
    let grown = 0;
    const server = await logServer(() => entries(10 + grown), { ...options, cursorAtEnd: true });
    const controller = new AbortController();
    let sleeps = 0;
    const clock = instantClock(START, () => {
      grown += options.perPause;
      if (++sleeps >= options.pauses) controller.abort();
    });
    const r = await runCli(["deploy", "logs", DEPLOYMENT, ...args, "--follow", "-o", "ndjson"], {
      env: env(server.url),
      clock,
      signal: controller.signal,
    });
    return { r, server, sleeps };
  }

  it("a runtime log that grows: one request after each pause, every entry once", async () => {
    const { r, server, sleeps } = await follow([], { pauses: 6, perPause: 3 });
    expect(r.code).toBe(130);
    // The first read, then one after each pause but the last (Ctrl-C during it); the deployment
    // read once, before them.
    expect(queries(server.requests)).toHaveLength(1 + sleeps - 1);
    expect(server.requests).toHaveLength(1 + 1 + sleeps - 1);
    const ids = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line).id);
    expect(ids).toEqual(entries(10 + 3 * (sleeps - 1)).map((e) => e.id));
  });

  it("a build log that has gone quiet: its revision is asked in place of a read, not beside it", async () => {
    const { r, server, sleeps } = await follow(["--build", "--revision", REVISION], {
      pauses: 9,
      perPause: 0,
    });
    expect(r.code).toBe(130);
    expect(server.requests).toHaveLength(1 + sleeps - 1);
    const kinds = server.requests.map((q) => (isLogRead(q) ? "log" : "revision"));
    expect(kinds).toEqual([
      "log",
      "log",
      "revision",
      "log",
      "revision",
      "log",
      "revision",
      "log",
      "revision",
    ]);
  });

  it("a build that finishes: its last lines, then exit 0", async () => {
    let status = "BUILDING";
    let grown = 0;
    const server = await logServer(() => entries(5 + grown), { status: () => status, cursorAtEnd: true });
    let sleeps = 0;
    const clock = instantClock(START, () => {
      sleeps++;
      if (sleeps <= 2) grown += 2;
      if (sleeps === 3) {
        grown += 1;
        status = "DEPLOYED";
      }
    });
    const r = await runCli(
      ["deploy", "logs", DEPLOYMENT, "--build", "--revision", REVISION, "--follow", "-o", "ndjson"],
      { env: env(server.url), clock },
    );
    expect(r.code, r.stderr).toBe(0);
    const ids = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line).id);
    expect(ids).toEqual(entries(10).map((e) => e.id));
    expect(server.requests.length).toBeLessThanOrEqual(1 + sleeps + 1);
  });
});
