// The push's progress on stderr: one live line on a terminal (blobs and bytes, redrawn, cleared
// at the end, lines that stay printed above it), a line per blob elsewhere; the summary.
import { describe, expect, it } from "vitest";
import type { FileBytes } from "./archive/files.js";
import type { PlanBlob, PushPlan } from "./plan.js";
import { pushDisplay, pushSummary } from "./progress.js";

const bytes: FileBytes = { size: 0, key: "none", read: () => Buffer.alloc(0), stream: () => null as never };
const blob = (label: string, size: number, n: number): PlanBlob => ({
  digest: `sha256:${String(n).repeat(64)}`,
  size,
  mediaType: "application/octet-stream",
  bytes,
  label,
});
const plan: PushPlan = {
  format: "oci-layout",
  source: "OCI layout ./oci",
  blobs: [blob("config", 1000, 1), blob("layer 1/1", 3 * 1024 * 1024, 2)],
  manifests: [{ digest: `sha256:${"9".repeat(64)}`, mediaType: "m", bytes: Buffer.alloc(0) }],
  imageId: `sha256:${"1".repeat(64)}`,
};

function capture(live: boolean) {
  let out = "";
  let now = 0;
  const lines: string[] = [];
  const display = pushDisplay(plan, {
    stderr: {
      write: (text: string) => {
        out += text;
      },
      isTTY: live,
      columns: 80,
    },
    live,
    info: (line) => {
      lines.push(line);
      out += `${line}\n`;
    },
    now: () => (now += 1000),
  });
  return { display, output: () => out, lines };
}

describe("push progress", () => {
  it("on a terminal: one line redrawn with blobs and bytes, cleared at the end; a retry stays above it", () => {
    const { display, output, lines } = capture(true);
    const [config, layer] = plan.blobs as [PlanBlob, PlanBlob];
    display.blob(config, "exists");
    display.blob(layer, "uploading");
    display.bytes(layer, 1024 * 1024);
    display.retry("upload layer 1/1", new Error("connection reset"), 2, 250);
    display.blob(layer, "uploaded");
    display.stop();
    const text = output();
    expect(text).toContain("\r\u001b[Kpushing: 1/2 blobs, 1000 B of 3 MiB");
    expect(text).toContain("\r\u001b[Kpushing: 1/2 blobs, 1 MiB of 3 MiB");
    expect(text).toContain("\r\u001b[Kpushing: 2/2 blobs, 3 MiB of 3 MiB");
    expect(text.endsWith("\r\u001b[K")).toBe(true);
    expect(lines).toEqual(["  retrying to upload layer 1/1 in 0.3 s (attempt 2): connection reset"]);
  });

  it("elsewhere: a line per blob and no control characters", () => {
    const { display, output } = capture(false);
    const [config, layer] = plan.blobs as [PlanBlob, PlanBlob];
    display.blob(config, "exists");
    display.blob(layer, "uploading");
    display.bytes(layer, 1024);
    display.blob(layer, "uploaded");
    display.stop();
    expect(output()).toBe(
      `  config sha256:111111111111 (1000 B): already in the registry\n  layer 1/1 sha256:222222222222 (3 MiB): uploaded\n`,
    );
  });

  it("sums up what was sent and what the registry had", () => {
    expect(
      pushSummary(plan, {
        digest: plan.manifests[0]!.digest,
        uploaded: { blobs: 1, bytes: 3 * 1024 * 1024 },
        skipped: { blobs: 1, bytes: 1000 },
      }),
    ).toBe("2 blobs, 1 uploaded (3 MiB), 1 already in the registry (1000 B)");
  });
});
