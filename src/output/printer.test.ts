// The printer's lists in every format, through the views commands use: the terminal table
// (header, name first, fitted to the width, times relative, an empty list said), the
// tab-separated rows off a terminal (unchanged: scripts cut them), and yaml streamed an item
// at a time. No timing: what is written, and when (after which push), is what is checked.
import { describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import type { OutStream } from "../io.js";
import type { OutputFormat } from "../model/enums.js";
import type { DeploymentT, GitIntegrationT, ListenerT, RevisionT } from "../model/responses.js";
import { yamlText } from "./encode.js";
import { Printer } from "./printer.js";
import { displayWidth } from "./text-width.js";
import {
  deploymentListView,
  deploymentView,
  integrationView,
  listenerView,
  revisionListView,
} from "./views.js";

const NOW = Date.parse("2026-03-10T12:00:00.000Z");

function printer(format: OutputFormat, out: { isTTY: boolean; columns?: number; color?: boolean }) {
  const writes: string[] = [];
  const stream: OutStream = {
    write: (text) => void writes.push(text),
    isTTY: out.isTTY,
    columns: out.columns,
  };
  const p = new Printer(stream, { format, showSecrets: false, color: out.color ?? false, now: () => NOW });
  return { printer: p, writes, text: () => writes.join("") };
}

function deployment(n: number, name: string, updated: string): DeploymentT {
  const id = `0f0f0f0${n}-0000-4000-8000-00000000000${n}`;
  return {
    id,
    name,
    source: n % 2 ? "external_container" : "internal_container",
    status: "READY",
    tenant_id: "11111111-1111-4111-8111-111111111111",
    latest_revision_id: `aaaaaaa${n}-0000-4000-8000-00000000000${n}`,
    active_revision_id: `aaaaaaa${n}-0000-4000-8000-00000000000${n}`,
    image_version: "1.0.0",
    created_at: "2026-03-01T00:00:00.000Z",
    updated_at: updated,
    source_config: {},
    source_revision_config: { image_uri: `registry.example.com/${name}:1` },
    secrets: [{ name: "OPENAI_API_KEY", value: "sk-secret" }],
  } as unknown as DeploymentT;
}

const alpha = deployment(1, "alpha", "2026-03-10T11:57:00.000Z");
const beta = deployment(2, "beta-agent", "2026-03-08T09:00:00.000Z");
const lines = (text: string) => text.replace(/\n$/, "").split("\n");

describe("deployments on a terminal", () => {
  test("a header, name first, then status and the ID, the rest after; times relative", async () => {
    const { printer: p, text } = printer("table", { isTTY: true, columns: 200 });
    await p.list([alpha, beta], deploymentListView(new Map([[beta.id, "BUILD_FAILED"]])));
    expect(lines(text())).toEqual([
      "NAME        STATUS                                ID                                    SOURCE              UPDATED  LATEST REV                            ACTIVE REV",
      "alpha       READY                                 0f0f0f01-0000-4000-8000-000000000001  external_container  3m ago   aaaaaaa1-0000-4000-8000-000000000001  aaaaaaa1-0000-4000-8000-000000000001",
      "beta-agent  READY (latest revision BUILD_FAILED)  0f0f0f02-0000-4000-8000-000000000002  internal_container  2d ago   aaaaaaa2-0000-4000-8000-000000000002  aaaaaaa2-0000-4000-8000-000000000002",
    ]);
  });

  test("fits the terminal: the revision IDs on the right give up their width first, the ID stays whole", async () => {
    const { printer: p, text } = printer("table", { isTTY: true, columns: 120 });
    await p.list([alpha, beta], deploymentView);
    const shown = lines(text());
    expect(shown[1]).toBe(
      "alpha       READY   0f0f0f01-0000-4000-8000-000000000001  external_container  3m ago   aaaaaaa1-…  aaaaaaa1-…",
    );
    for (const line of shown) expect(displayWidth(line)).toBeLessThanOrEqual(120);
  });

  test("on a narrow terminal every line fits: long values shortened, the ID to its first 8 characters", async () => {
    const long = deployment(3, "a-deployment-whose-name-goes-on-and-on", "2026-03-10T06:00:00.000Z");
    for (const columns of [80, 60, 40]) {
      const { printer: p, text } = printer("table", { isTTY: true, columns });
      await p.list([alpha, long], deploymentView);
      const shown = lines(text());
      expect(shown[0]).toMatch(/^NAME\s+STATUS/);
      for (const line of shown)
        expect(displayWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      if (columns === 80) {
        expect(shown[1]).toMatch(/^alpha\s+READY\s+0f0f0f01… /);
        // The name and status stay whole: the IDs shorten, the revision IDs go, SOURCE shrinks.
        expect(shown[0]).toBe(
          "NAME                                    STATUS  ID         SOURCE        UPDATED",
        );
        expect(shown[2]).toBe(
          "a-deployment-whose-name-goes-on-and-on  READY   0f0f0f03…  external_co…  6h ago",
        );
      }
      // Cut last, after every other column has gone.
      if (columns === 40) expect(shown[2]).toMatch(/^a-deploy\S*… {2}READY {3}0f0f0f03…$/);
    }
  });

  test("an empty list says so", async () => {
    const tty = printer("table", { isTTY: true, columns: 100 });
    await tty.printer.list([], deploymentListView(new Map()));
    expect(tty.text()).toBe("No deployments.\n");
    const pipe = printer("table", { isTTY: false });
    await pipe.printer.list([], deploymentListView(new Map()));
    expect(pipe.text()).toBe("");
  });

  test("control characters in a value are shown, not acted on, and the header is bold only with colour", async () => {
    const hostile = deployment(4, "evil\x1b]0;owned\x07\u202ename\r\nfake-row", "2026-03-10T11:00:00.000Z");
    const plain = printer("table", { isTTY: true, columns: 200 });
    await plain.printer.list([hostile], deploymentView);
    expect(plain.text()).toContain("evil\\x1b]0;owned\\x07\\u202ename\\x0d\\x0afake-row  READY");
    expect(plain.text()).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(lines(plain.text())).toHaveLength(2);
    const narrow = printer("table", { isTTY: true, columns: 40 });
    await narrow.printer.list([hostile], deploymentView);
    expect(narrow.text()).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    const coloured = printer("table", { isTTY: true, columns: 200, color: true });
    await coloured.printer.list([hostile], deploymentView);
    expect(coloured.text()).toMatch(/^\x1b\[1mNAME .*\x1b\[22m\n[^\x1b]*$/);
  });
});

describe("off a terminal", () => {
  test("the tab-separated rows are as they were, byte for byte: view order, ISO times, no header", async () => {
    const { printer: p, text } = printer("table", { isTTY: false });
    await p.list([alpha, beta], deploymentListView(new Map([[beta.id, "BUILD_FAILED"]])));
    expect(text()).toBe(
      "0f0f0f01-0000-4000-8000-000000000001\talpha\texternal_container\tREADY\taaaaaaa1-0000-4000-8000-000000000001\taaaaaaa1-0000-4000-8000-000000000001\t2026-03-10T11:57:00.000Z\n" +
        "0f0f0f02-0000-4000-8000-000000000002\tbeta-agent\tinternal_container\tREADY (latest revision BUILD_FAILED)\taaaaaaa2-0000-4000-8000-000000000002\taaaaaaa2-0000-4000-8000-000000000002\t2026-03-08T09:00:00.000Z\n",
    );
  });

  test("one item: a label and a value a line, tab-separated", async () => {
    const { printer: p, text } = printer("table", { isTTY: false });
    await p.item(alpha, deploymentView);
    expect(lines(text()).slice(0, 2)).toEqual(["id\t0f0f0f01-0000-4000-8000-000000000001", "name\talpha"]);
    expect(text()).toContain("updated_at\t2026-03-10T11:57:00.000Z\n");
    expect(text()).toContain("secrets\tOPENAI_API_KEY=****\n");
  });
});

test("one item on a terminal: labels aligned, values whole however wide, times exact", async () => {
  const { printer: p, text } = printer("table", { isTTY: true, columns: 40 });
  await p.item(beta, deploymentView);
  const shown = lines(text());
  expect(shown[0]).toBe("id                      0f0f0f02-0000-4000-8000-000000000002");
  expect(shown).toContain("updated_at              2026-03-08T09:00:00.000Z");
  // An object is its label and then its fields, indented: the labels stay short.
  const at = shown.indexOf("source_revision_config");
  expect(shown[at + 1]).toBe("  image_uri: registry.example.com/beta-agent:1");
  expect(shown).toContain("secrets                 OPENAI_API_KEY=****");
});

describe("yaml", () => {
  test("a list is written an item at a time, and reads back as the whole list", async () => {
    const { printer: p, writes, text } = printer("yaml", { isTTY: false });
    const writer = p.listWriter(deploymentView);
    await writer.push(alpha);
    expect(writes).toHaveLength(1);
    expect(parseYaml(text())).toEqual([{ ...alpha, secrets: [{ name: "OPENAI_API_KEY", value: "****" }] }]);
    await writer.push(beta);
    writer.flush();
    expect(writes).toHaveLength(2);
    await writer.end();
    const masked = [alpha, beta].map((d) => ({ ...d, secrets: [{ name: "OPENAI_API_KEY", value: "****" }] }));
    expect(parseYaml(text())).toEqual(masked);
    // The same text as the whole list through the encoder at once, as before.
    expect(text()).toBe(await yamlText(masked));
  });

  test("characters a terminal acts on are escaped item by item, as for a single value", async () => {
    const hostile = { ...alpha, name: "evil\x1b[2J\u202e" };
    const { printer: p, text } = printer("yaml", { isTTY: true });
    await p.list([hostile, beta], deploymentView);
    expect(text()).toContain('name: "evil\\e[2J\\u202e"');
    expect(text()).not.toMatch(/[\x1b\u202e]/);
    expect(parseYaml(text())[0].name).toBe(hostile.name);
  });

  test("an empty list is an empty sequence; a single item is a mapping, as before", async () => {
    const empty = printer("yaml", { isTTY: true });
    await empty.printer.list([], deploymentView);
    expect(empty.text()).toBe("[]\n");
    const one = printer("yaml", { isTTY: false });
    await one.printer.item(alpha, deploymentView);
    expect(parseYaml(one.text())).toMatchObject({ id: alpha.id, name: "alpha" });
  });
});

describe("the other views through the same table", () => {
  const revision = (n: number, status: string, ref: string): RevisionT =>
    ({
      id: `bbbbbbb${n}-0000-4000-8000-00000000000${n}`,
      status,
      source: "gitrepo",
      source_revision_config: { repo_ref: ref, repo_commit_sha: "0123456789abcdef0123" },
      created_at: "2026-03-10T10:00:00.000Z",
      updated_at: "2026-03-10T11:30:00.000Z",
    }) as unknown as RevisionT;

  test("revisions: the active one marked in the last column, times relative", async () => {
    const revisions = [revision(2, "DEPLOYED", "main"), revision(1, "BUILD_FAILED", "broken")];
    const { printer: p, text } = printer("table", { isTTY: true, columns: 120 });
    await p.list(revisions, revisionListView(revisions[0]!.id));
    expect(lines(text())).toEqual([
      "ID                                    STATUS        SOURCE   REF     COMMIT        CREATED  UPDATED  ACTIVE",
      "bbbbbbb2-0000-4000-8000-000000000002  DEPLOYED      gitrepo  main    0123456789ab  2h ago   30m ago  *",
      "bbbbbbb1-0000-4000-8000-000000000001  BUILD_FAILED  gitrepo  broken  0123456789ab  2h ago   30m ago  -",
    ]);
    const empty = printer("table", { isTTY: true, columns: 120 });
    await empty.printer.list([], revisionListView(null));
    expect(empty.text()).toBe("No revisions.\n");
  });

  test("integrations: name first; listeners: creation time relative", async () => {
    const integration = { id: "cccccccc-0000-4000-8000-000000000001", name: "acme-org", installation_id: 42 };
    const ints = printer("table", { isTTY: true, columns: 100 });
    await ints.printer.list([integration as unknown as GitIntegrationT], integrationView);
    expect(lines(ints.text())).toEqual([
      "NAME      ID                                    INSTALLATION ID",
      "acme-org  cccccccc-0000-4000-8000-000000000001  42",
    ]);
    const listener = {
      id: "dddddddd-0000-4000-8000-000000000001",
      compute_type: "k8s",
      compute_id: "cluster-1",
      compute_config: { k8s_namespaces: ["default", "agents"] },
      created_at: "2025-01-01T00:00:00.000Z",
    };
    const ls = printer("table", { isTTY: true, columns: 100 });
    await ls.printer.list([listener as unknown as ListenerT], listenerView);
    expect(lines(ls.text())[1]).toBe(
      "dddddddd-0000-4000-8000-000000000001  k8s           cluster-1   default,agents  1y ago",
    );
  });
});
