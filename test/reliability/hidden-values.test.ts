// A server that hides secret values in its own way (`********`, `[REDACTED]`, `sk-...abcd`,
// `<hidden>`, ...), fuzzed (fast-check, seeded in CI): whatever mask it uses, a patch that
// keeps the other secrets never writes the mask back as if it were the value. The command is
// refused (exit 2, nothing sent) and asks for --replace-secrets; with it, only the values the
// user gave are sent. Issue 22 item 3; the rule is secrets.ts's looksMasked.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { looksMasked } from "../../src/secrets.js";
import { json, type RecordedRequest, startServer, type TestServer } from "../helpers/http-server.js";
import { runCli } from "../helpers/run-cli.js";
import { report } from "./helpers.js";

const ID = "0d15ea5e-0000-4000-8000-0000000000cc";
let mask = "****";
/** The secrets the deployment holds (their values are never shown). */
let names = ["A", "B"];
let server: TestServer;
beforeAll(async () => {
  server = await startServer((req: RecordedRequest, res) => {
    // A server that hides values hides them in every answer, the PATCH's included.
    if (req.method === "PATCH") {
      const sent = (JSON.parse(req.body) as { secrets?: { name: string }[] }).secrets;
      if (sent) names = sent.map((s) => s.name);
    }
    json(res, 200, {
      id: ID,
      name: "hidden",
      source: "external_container",
      source_config: { resource_spec: null },
      source_revision_config: { image_uri: "r.example.com/a:1" },
      secrets: names.map((name) => ({ name, value: mask })),
      secret_references: [],
      tenant_id: "11111111-1111-4111-8111-111111111111",
      created_at: "2026-11-21T12:00:00Z",
      updated_at: "2026-11-21T12:00:00Z",
      status: "READY",
      latest_revision_id: null,
      active_revision_id: null,
    });
  });
});
afterAll(() => server.close());

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".split("");
const few = (max: number) => fc.string({ unit: fc.constantFrom(...ALNUM), maxLength: max });
/** How services show a secret without its value. */
const masks = fc.oneof(
  fc.integer({ min: 1, max: 32 }).chain((n) => fc.constantFrom("*", "•").map((c) => c.repeat(n))),
  fc.tuple(few(6), fc.integer({ min: 3, max: 10 }), few(4)).map(([a, n, b]) => `${a}${"*".repeat(n)}${b}`),
  fc
    .tuple(
      fc.constantFrom("[]", "<>", "()"),
      fc.constantFrom("REDACTED", "redacted", "Hidden", "MASKED", "secret"),
    )
    .map(([b, word]) => `${b[0]}${word}${b[1]}`),
  fc.tuple(few(8), fc.constantFrom("...", "…"), few(8)).map(([a, dots, b]) => `${a}${dots}${b}`),
);

const counts = { cases: 0, refused: 0, replaced: 0, masksSent: 0 };
afterAll(() => report("hidden secret values", counts));

describe("fuzzed masks from a server: never written back as values", () => {
  it("150 masks: a patch that keeps them is refused; --replace-secrets sends only real values", async () => {
    await fc.assert(
      fc.asyncProperty(masks, fc.boolean(), async (hidden, replace) => {
        counts.cases++;
        mask = hidden;
        names = ["A", "B"];
        const before = server.requests.length;
        const args = ["deploy", "patch", ID, "--secret", "C=charlie-value", "--yes"];
        if (replace) args.push("--replace-secrets", "--secret", "A=alpha-value");
        const r = await runCli(args, { env: { CPCTL_BASE_URL: server.url, CPCTL_API_KEY: "k" } });
        const patches = server.requests.slice(before).filter((q) => q.method === "PATCH");
        for (const patch of patches) {
          const secrets = (JSON.parse(patch.body) as { secrets?: { value: string }[] }).secrets ?? [];
          counts.masksSent += secrets.filter((s) => looksMasked(s.value)).length;
          expect(secrets.map((s) => s.value)).not.toContain(hidden);
        }
        if (replace) {
          expect(r.code, r.stderr).toBe(0);
          counts.replaced++;
        } else {
          expect(r.code, `${hidden}: ${r.stderr}`).toBe(2);
          expect(r.stderr).toContain("returned secrets A, B without their values");
          expect(patches).toHaveLength(0);
          counts.refused++;
        }
      }),
      { numRuns: 150 },
    );
    expect(counts.masksSent).toBe(0);
  }, 120_000);
});
