import { describe, expect, it } from "vitest";
import { createMasker } from "../secrets.js";
import { type PreviewFacts, previewCommentBody, previewMarker } from "./preview-comment.js";

const facts = (overrides: Partial<PreviewFacts> = {}): PreviewFacts => ({
  of: "my-agent",
  number: 7,
  deployment: { id: "d-1", name: "my-agent-pr-7", url: "https://agent.example.com/a" },
  revision: { id: "r-1", status: "DEPLOYED" },
  result: "deployed",
  elapsedSeconds: 80,
  time: Date.UTC(2026, 10, 21, 12, 0, 5),
  runUrl: null,
  ...overrides,
});

describe("the preview's comment", () => {
  it("starts with its hidden marker, one per NAME; a NAME cannot close the HTML comment", () => {
    expect(previewMarker("my-agent")).toBe("<!-- cpctl-preview:my-agent -->");
    const hostile = previewMarker("x --> <img src=x> --!>");
    expect(hostile.slice(4, -4)).not.toMatch(/-->|--!>|[<>]/);
    expect(previewMarker("a")).not.toBe(previewMarker("a "));
    expect(previewCommentBody(facts(), (t) => t).split("\n")[0]).toBe("<!-- cpctl-preview:my-agent -->");
  });

  it("escapes what a server or a file said, and links only http(s) URLs", () => {
    const body = previewCommentBody(
      facts({
        deployment: { id: "d-1", name: "a|b`c", url: "javascript:alert(1)" },
        verification: { result: "unverified", reason: "HTTP 500: <script>x</script> | broken", attempts: 3 },
      }),
      (t) => t,
    );
    expect(body).toContain("| URL | javascript:alert(1) |");
    expect(body).not.toContain("<script>");
    expect(body).toContain("\\<script\\>");
    expect(body).toContain("a\\|b\\`c");
    expect(
      body
        .split("\n")
        .filter((line) => line.startsWith("|"))
        .every((line) => line.split(/(?<!\\)\|/).length === 4),
    ).toBe(true);
  });

  it("masks every secret the run knows, wherever it shows", () => {
    const mask = createMasker(["sk-secret-1", "ghs_token_1"]);
    const body = previewCommentBody(
      facts({
        deployment: { id: "d-1", name: "my-agent-pr-7", url: "https://agent.example.com/?k=sk-secret-1" },
        verification: { result: "unverified", reason: "answered ghs_token_1", attempts: 1 },
      }),
      mask,
    );
    expect(body).not.toContain("sk-secret-1");
    expect(body).not.toContain("ghs_token_1");
  });

  it("says the health as far as it was checked, and when, in UTC", () => {
    expect(previewCommentBody(facts(), (t) => t)).toContain(
      "| Health | not checked (`deploy push --verify` checks it) |",
    );
    expect(
      previewCommentBody(
        facts({ result: "verified", verification: { result: "verified", reason: null, attempts: 1 } }),
        (t) => t,
      ),
    ).toContain("| Health | verified: `/ok` answered (1 health check) |");
    expect(
      previewCommentBody(facts({ runUrl: "https://github.com/a/b/actions/runs/1" }), (t) => t),
    ).toContain(
      "| Updated | 2026-11-21 12:00:05 UTC by [https://github.com/a/b/actions/runs/1](https://github.com/a/b/actions/runs/1) |",
    );
  });
});
