// docs/emulator.md's curl examples reach the tenant that the `local` profile's commands act
// in: they send its key. (They sent `X-Api-Key: dev`, another tenant: a fail rule made that way
// answered 201 and never met the reader's revisions.) Each curl is run here, as written, against
// an emulator on the test's port.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_API_KEY } from "../../src/config/profiles.js";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { runCli } from "../helpers/run-cli.js";
import { ROOT } from "./collect.js";
import { literal, parseShell, type SimpleCommand } from "./shell.js";

afterEach(closeTestEmulators);

interface Curl {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** The curl commands of docs/emulator.md, read as curl reads them (-X, -H, -d, the URL). */
function curls(): Curl[] {
  const text = readFileSync(join(ROOT, "docs/emulator.md"), "utf8");
  const found: Curl[] = [];
  for (const [, script] of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    for (const item of parseShell(script!))
      for (const command of [item.first, ...item.rest.map((r) => r.pipeline)].flat())
        if (command.words[0] && literal(command.words[0]) === "curl") found.push(readCurl(command));
  }
  return found;
}

function readCurl(command: SimpleCommand): Curl {
  const words = command.words.slice(1).map((word) => literal(word) ?? "$VARIABLE");
  const curl: Curl = { method: "GET", path: "", headers: {} };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "-X") curl.method = words[++i]!;
    else if (word === "-H") {
      const [name, ...value] = words[++i]!.split(":");
      curl.headers[name!.trim()] = value.join(":").trim();
    } else if (word === "-d") {
      curl.body = words[++i];
      if (curl.method === "GET") curl.method = "POST";
    } else if (word.startsWith("localhost:8124")) curl.path = word.slice("localhost:8124".length);
  }
  return curl;
}

const send = (em: TestEmulator, curl: Curl) =>
  em.request(curl.method, curl.path, {
    auth: false,
    headers: curl.headers,
    ...(curl.body === undefined ? {} : { rawBody: curl.body }),
  });

describe("docs/emulator.md's curl examples", () => {
  it("send the local profile's key, whenever they send one", () => {
    const keyed = curls().filter((curl) => "X-Api-Key" in curl.headers);
    expect(keyed.length).toBeGreaterThanOrEqual(2);
    for (const curl of keyed) expect(curl.headers["X-Api-Key"], curl.path).toBe(LOCAL_API_KEY);
  });

  it("the fail-next one makes the next revision of a `--profile local` deployment fail", async () => {
    const em = await startTestEmulator();
    const failNext = curls().find((curl) => curl.path === "/_emulator/revisions/fail-next")!;
    expect((await send(em, failNext)).status).toBe(201);
    const env = { CPCTL_PROFILE: "local", CPCTL_BASE_URL: em.url };
    const integration = em.emulator.seed(em.emulator.tenantFor(LOCAL_API_KEY)).integrations[0]!.id;
    const created = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "my-agent",
        "--source",
        "gitrepo",
        "--integration-id",
        integration,
        "--repo-url",
        "https://github.com/acme/agent",
        "--repo-ref",
        "main",
        "--agent-config-path",
        "agent.json",
        "--wait",
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(5);
    expect(created.stderr).toContain(JSON.parse(failNext.body!).message);
  });
});
