// Each error class of CLI.md, end to end: the exit code, the message on stderr, nothing on
// stdout, and the JSON error object in json mode.
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator } from "../helpers/emulator.js";
import { closedPort } from "../helpers/http-server.js";
import { cliEnv, runCli } from "../helpers/run-cli.js";
import { jsonError } from "../reliability/helpers.js";

afterEach(closeTestEmulators);

describe("error classes", () => {
  it("400 with a detail string: exit 2", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "GET", path: "/v2/deployments", status: 400 });
    const r = await runCli(["deploy", "list", "-o", "json"], { env: cliEnv(em) });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(jsonError(r.stderr)).toMatchObject({
      code: "invalid_request",
      status: 400,
      message: expect.any(String),
    });
  });

  it("422 from the server (an arbitrary tarball path): exit 2 with the field", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_source", "src");
    const r = await runCli(["deploy", "patch", "src", "--source-tarball-path", "uploads/not-issued.tar.gz"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("source_revision_config.source_tarball_path");
    const json = await runCli(
      ["deploy", "patch", "src", "--source-tarball-path", "uploads/x.tar.gz", "--json"],
      { env: cliEnv(em) },
    );
    const error = jsonError(json.stderr);
    expect(error.status).toBe(422);
    const { detail } = error.details as { detail: { loc: unknown }[] };
    expect(detail[0]!.loc).toEqual(["body", "source_revision_config", "source_tarball_path"]);
  });

  it("401 and 403: exit 3, with advice on credentials and no credential echoed", async () => {
    const em = await startTestEmulator({ apiKeys: ["right-key-123"] });
    const wrong = await runCli(["deploy", "list"], {
      env: { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: "wrong-key-456" },
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/CPCTL_API_KEY|--api-key-file/);
    expect(wrong.stderr).not.toContain("wrong-key-456");
    const none = await runCli(["deploy", "list", "-o", "json"], { env: { CPCTL_BASE_URL: em.url } });
    expect(none.code).toBe(3);
    expect(jsonError(none.stderr)).toMatchObject({ code: "unauthenticated", status: 401 });

    const org = await startTestEmulator();
    const forbidden = await runCli(["deploy", "list", "-o", "json"], {
      env: { CPCTL_BASE_URL: org.url, CPCTL_API_KEY: "org_shared-key" },
    });
    expect(forbidden.code).toBe(3);
    expect(jsonError(forbidden.stderr)).toMatchObject({ code: "forbidden", status: 403 });
    // The emulator answers as the hosted service does ("requires workspace specification").
    expect(jsonError(forbidden.stderr).message).toContain(
      "an organisation-scoped API key also needs a tenant: set --tenant-id or CPCTL_TENANT_ID",
    );
    const withTenant = await runCli(
      ["deploy", "list", "--tenant-id", "0f0f0f0f-0000-4000-8000-000000000000"],
      {
        env: { CPCTL_BASE_URL: org.url, CPCTL_API_KEY: "org_shared-key" },
      },
    );
    expect(withTenant.code).toBe(0);
  });

  it("the tenant header name is configurable and tenants stay apart", async () => {
    const em = await startTestEmulator({ tenantHeader: "X-Workspace-Id" });
    const tenantA = "0a0a0a0a-0000-4000-8000-000000000000";
    const tenantB = "0b0b0b0b-0000-4000-8000-000000000000";
    const env = { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: "k-1234", CPCTL_TENANT_HEADER: "X-Workspace-Id" };
    const created = await runCli(
      [
        "deploy",
        "create",
        "--name",
        "mine",
        "--source",
        "internal_container",
        "--tenant-id",
        tenantA,
        "-o",
        "id",
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const other = await runCli(["deploy", "get", created.stdout.trim(), "--tenant-id", tenantB], { env });
    expect(other.code).toBe(4);
    const same = await runCli(["deploy", "get", "mine", "--tenant-id", tenantA, "-o", "id"], { env });
    expect(same.stdout.trim()).toBe(created.stdout.trim());
  });

  it("404: exit 4", async () => {
    const em = await startTestEmulator();
    const r = await runCli(["deploy", "get", "0f0f0f0f-0000-4000-8000-000000000000"], { env: cliEnv(em) });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: .*not found/i);
  });

  it("409: exit 1", async () => {
    const em = await startTestEmulator();
    await em.createDeployment("internal_container", "taken");
    const r = await runCli(["deploy", "create", "--name", "taken", "--source", "internal_container"], {
      env: cliEnv(em),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("taken");
  });

  it("5xx and a non-JSON (HTML) body: exit 1, no HTML dumped", async () => {
    const em = await startTestEmulator();
    em.emulator.addFault({ method: "GET", path: "/v2/deployments/*", status: 500, count: 10 });
    const d = await em.createDeployment("internal_container", "s");
    const r = await runCli(["deploy", "get", d.id], { env: cliEnv(em) });
    expect(r.code).toBe(1);
    em.emulator.clearFaults();
    em.emulator.addFault({ method: "GET", path: "/v2/deployments/*", status: 502, body: "html", count: 10 });
    const html = await runCli(["deploy", "get", d.id, "-o", "json"], { env: cliEnv(em) });
    expect(html.code).toBe(1);
    expect(html.stderr).not.toContain("<html");
    expect(jsonError(html.stderr)).toMatchObject({ code: "server_error", status: 502 });
  });

  it("an unreachable control plane: exit 1 naming the address", async () => {
    const port = await closedPort();
    const r = await runCli(["deploy", "list", "-o", "json"], {
      env: { CPCTL_BASE_URL: `http://127.0.0.1:${port}`, CPCTL_API_KEY: "k" },
    });
    expect(r.code).toBe(1);
    const error = jsonError(r.stderr);
    expect(error.code).toBe("network");
    expect(error.status).toBeNull();
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it("usage errors: exit 2 for unknown commands, flags, bad values and a missing address", async () => {
    for (const args of [
      ["deploy", "frobnicate"],
      ["deploy", "list", "--bogus"],
      ["-o", "xml", "deploy", "list"],
      ["deploy", "get"],
      ["deploy", "wait", "x", "--timeout", "soon"],
    ]) {
      const r = await runCli(args, { env: { CPCTL_BASE_URL: "http://127.0.0.1:9", CPCTL_API_KEY: "k" } });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
    }
    const noAddress = await runCli(["deploy", "list"], { env: {} });
    expect(noAddress.code).toBe(2);
    expect(noAddress.stderr).toContain("--base-url");
    const badEnv = await runCli(["deploy", "list"], {
      env: { CPCTL_BASE_URL: "ftp://x", CPCTL_API_KEY: "k" },
    });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain("CPCTL_BASE_URL");
  });

  it("help and version go to stdout with exit 0", async () => {
    const help = await runCli(["deploy", "create", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--agent-config-path");
    const version = await runCli(["--version"]);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("an option's value that looks like a global option is the option's value", async () => {
    // The root program used to take these for its own: -V printed the version, -h the help,
    // -o ate the next argument.
    for (const name of ["-V", "--version", "-h", "--help", "--json", "-o", "-y"]) {
      const r = await runCli(
        ["deploy", "create", "--dry-run", "--name", name, "--source", "internal_container", "-o", "json"],
        { env: { CPCTL_BASE_URL: "http://127.0.0.1:9" } },
      );
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ name, source: "internal_container" });
    }
    // The short flag of a command's own option too.
    const file = await runCli(["deploy", "create", "--dry-run", "-f", "-V", "-o", "json"]);
    expect(file.code).toBe(2);
    expect(jsonError(file.stderr).message).toBe(
      "-f -V: cannot read it (no such file); give a deployment file, YAML or JSON (- for stdin)",
    );
  });

  it("a global option's value that is `--` or looks like an option is its value (found by the fuzz test)", async () => {
    // `--request-timeout --` took "--" for the end of the options: the later -V printed the version, exit 0.
    const r = await runCli([
      "deploy",
      "create",
      "--dry-run",
      "--request-timeout",
      "--",
      "--name",
      "-V",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(jsonError(r.stderr).message).toContain("--request-timeout: '--' is not a duration");
    const output = await runCli(["deploy", "list", "-o", "-V"]);
    expect(output.code).toBe(2);
    expect(output.stderr).toContain("--output '-V': expected one of");
  });
});
