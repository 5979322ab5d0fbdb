// `--image` through docker or podman, with stand-in executables that record every call: the
// token only ever on stdin, a private config directory that is gone afterwards (after a
// failure and Ctrl-C too), one new token when a push is refused.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../../../test/helpers/emulator.js";
import { makeStandIns, type StandIns } from "../../../test/helpers/engine-standin.js";
import { failure } from "../../../test/helpers/failure.js";
import { makeTestImage } from "../../../test/helpers/images.js";
import { ApiError, InterruptedError, OperationError, UsageError } from "../../errors.js";
import { exitCodeOf } from "../../exit-codes.js";
import { imageReference, registryAddress } from "../registry/address.js";
import type { TokenSource } from "../registry/session.js";
import { type EngineName, findEngine } from "./find.js";
import { inspectLocalImage, pushWithEngine } from "./push.js";

afterEach(closeTestEmulators);

async function tokensFor(em: TestEmulator) {
  const deployment = await em.createDeployment("internal_container");
  const first = await em.post(`/v2/deployments/${deployment.id}/push-token`);
  let token: string = first.json.token;
  const issued: string[] = [token];
  const tokens: TokenSource & { issued: string[] } = {
    issued,
    current: () => token,
    renew: async () => {
      token = (await em.post(`/v2/deployments/${deployment.id}/push-token`)).json.token;
      issued.push(token);
      return token;
    },
  };
  return { deployment, tokens, address: registryAddress(first.json.registry_url) };
}

async function pushVia(
  em: TestEmulator,
  standIns: StandIns,
  name: EngineName,
  extraEnv: Record<string, string> = {},
  signal?: AbortSignal,
) {
  const { tokens, address } = await tokensFor(em);
  const env = { ...standIns.env, ...extraEnv };
  const engine = findEngine(env, name);
  const lines: string[] = [];
  const push = pushWithEngine(
    { engine, env, signal, onLine: (line) => lines.push(line) },
    { image: "my-agent:dev", address, reference: imageReference(address, "my-agent"), tag: "t1", tokens },
  );
  return { push, tokens, lines, address };
}

function expectTokenOnlyOnStdin(standIns: StandIns, tokens: string[]) {
  const calls = standIns.calls();
  for (const call of calls) {
    for (const token of tokens) expect(call.args.join(" ")).not.toContain(token);
    if (call.args.includes("login")) {
      expect(call.args).toContain("--password-stdin");
      expect(tokens).toContain(call.stdin.trim());
    } else {
      expect(call.stdin).toBe("");
    }
  }
}

describe("pushing with docker or podman", () => {
  it("docker: logs in with the token on stdin in a private --config, tags, pushes, reads the digest; the directory is gone after", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("docker-engine"));
    const { push, tokens, address } = await pushVia(em, standIns, "docker", { DOCKER_CONTEXT: "colima" });
    expect(await push).toBe(standIns.digest);

    const calls = standIns.calls();
    expect(calls.map((call) => call.args.filter((a) => !a.startsWith("/")).slice(0, 3))).toEqual([
      ["context", "inspect", "--format"],
      ["--config", "login", "--username"],
      ["tag", "--", "my-agent:dev"],
      ["--config", "push", "--"],
    ]);
    // The user's context (read with the user's config) names the daemon the private config cannot.
    expect(calls[0]!.configDir).toBeNull();
    expect(calls[0]!.env.DOCKER_CONTEXT).toBe("colima");
    for (const call of [calls[1]!, calls[3]!]) {
      expect(call.env).toMatchObject({ DOCKER_HOST: "unix:///run/standin/colima.sock" });
      expect(call.env.DOCKER_CONTEXT).toBeUndefined();
    }
    const login = calls[1]!;
    expect(login.args).toEqual([
      "--config",
      login.configDir,
      "login",
      "--username",
      "oauth2accesstoken",
      "--password-stdin",
      "--",
      address.host,
    ]);
    expect(login.configDirExisted).toBe(true);
    expect(calls[3]!.configDir).toBe(login.configDir);
    expect(existsSync(login.configDir!)).toBe(false);
    expectTokenOnlyOnStdin(standIns, tokens.issued);
  });

  it("podman: --authfile in the private directory, --tls-verify=false for a loopback registry, the digest from --digestfile", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("podman-engine"), ["podman"]);
    const { push, tokens, address } = await pushVia(em, standIns, "podman");
    expect(await push).toBe(standIns.digest);
    const calls = standIns.calls();
    const login = calls.find((call) => call.args[0] === "login")!;
    expect(login.args).toEqual([
      "login",
      "--authfile",
      join(login.configDir!, "auth.json"),
      "--tls-verify=false",
      "--username",
      "oauth2accesstoken",
      "--password-stdin",
      "--",
      address.host,
    ]);
    const pushCall = calls.find((call) => call.args[0] === "push")!;
    expect(pushCall.args).toContain("--digestfile");
    expect(pushCall.configDirExisted).toBe(true);
    expect(existsSync(login.configDir!)).toBe(false);
    expectTokenOnlyOnStdin(standIns, tokens.issued);
  });

  it("puts -- before every positional value (image, host, target), for docker and podman alike", async () => {
    for (const name of ["docker", "podman"] as const) {
      const em = await startTestEmulator();
      const standIns = makeStandIns(makeTestImage(`dashes-${name}`), [name]);
      const { push, address } = await pushVia(em, standIns, name);
      await push;
      const env = standIns.env;
      await inspectLocalImage({ engine: findEngine(env, name), env }, "my-agent:dev");
      const target = `${address.host}/${address.prefix}/my-agent:t1`;
      const calls = standIns.calls().map((call) => call.args);
      const positional = (args: string[]) => args.slice(args.indexOf("--"));
      const named = (word: string) => calls.filter((args) => args.includes(word));
      expect(named("login").map(positional)).toEqual([["--", address.host]]);
      expect(named("tag").map(positional)).toEqual([["--", "my-agent:dev", target]]);
      expect(named("push").map(positional)).toEqual([["--", target]]);
      expect(
        named("inspect")
          .filter((args) => args[0] === "image")
          .map(positional),
      ).toEqual([["--", "my-agent:dev"]]);
      for (const args of calls)
        if (!args.includes("--")) expect(args.slice(0, 2)).toEqual(["context", "inspect"]);
    }
  });

  it("asks for one new token when a push is refused, logs in again and pushes again", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("refused-once"));
    const { push, tokens } = await pushVia(em, standIns, "docker", { STANDIN_REFUSE_PUSHES: "1" });
    expect(await push).toBe(standIns.digest);
    expect(tokens.issued).toHaveLength(2);
    const logins = standIns.calls().filter((call) => call.args.includes("login"));
    expect(logins.map((call) => call.stdin.trim())).toEqual(tokens.issued);
    expectTokenOnlyOnStdin(standIns, tokens.issued);
  });

  it("stops with exit 3 when the new token is refused too, and leaves no config directory", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("refused-twice"));
    const { push, tokens } = await pushVia(em, standIns, "docker", { STANDIN_REFUSE_PUSHES: "2" });
    const error = await failure(push, ApiError);
    expect(exitCodeOf(error)).toBe(3);
    expect(error.message).toMatch(/refused the push token, and a new one too/);
    for (const token of tokens.issued) expect(error.message).not.toContain(token);
    for (const call of standIns.calls()) expect(existsSync(call.configDir!)).toBe(false);
  });

  it("tries a failing push three times, then fails with the engine's words; the directory is gone", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("failing"));
    const { push } = await pushVia(em, standIns, "docker", { STANDIN_FAIL_PUSHES: "5" });
    const error = await failure(push, OperationError);
    expect(error.message).toMatch(/failed 3 times.*connection reset by peer/);
    expect(standIns.calls().filter((call) => call.args.includes("push"))).toHaveLength(3);
    for (const call of standIns.calls()) if (call.configDir) expect(existsSync(call.configDir)).toBe(false);
  });

  it("on Ctrl-C stops the engine and removes the directory", async () => {
    const em = await startTestEmulator();
    const standIns = makeStandIns(makeTestImage("ctrl-c"));
    const controller = new AbortController();
    const { push } = await pushVia(em, standIns, "docker", { STANDIN_HANG_PUSH: "1" }, controller.signal);
    const outcome = failure(push, InterruptedError);
    for (let i = 0; i < 500 && !existsSync(join(standIns.state, "pushing")); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    await outcome;
    for (const call of standIns.calls()) if (call.configDir) expect(existsSync(call.configDir)).toBe(false);
  });

  it("says when the image is not in the engine's store, in the engine's words", async () => {
    const standIns = makeStandIns(makeTestImage("missing"));
    const env = { ...standIns.env, STANDIN_MISSING: "nope:latest" };
    for (const name of ["docker", "podman"] as const) {
      const error = await failure(
        inspectLocalImage({ engine: findEngine(env, name), env }, "nope:latest"),
        UsageError,
      );
      expect(error.message).toMatch(name === "docker" ? /No such image: nope:latest/ : /image not known/);
    }
    const found = await inspectLocalImage({ engine: findEngine(env, "docker"), env }, "there:1");
    expect(found.id).toMatch(/^sha256:[a-f0-9]{64}$/);
    const down = { ...env, STANDIN_DAEMON_DOWN: "1" };
    const stopped = await failure(
      inspectLocalImage({ engine: findEngine(down, "docker"), env: down }, "there:1"),
      UsageError,
    );
    expect(stopped.message).toMatch(
      /could not look the image up \(Cannot connect to the Docker daemon.*is docker running\? Or, if the image is in podman's store, add --engine podman\..*--image-archive/,
    );
  });
});

describe("finding the engine", () => {
  it("takes docker before podman, podman alone, or the one --engine names", () => {
    const both = makeStandIns(makeTestImage("find"));
    expect(findEngine(both.env).name).toBe("docker");
    expect(findEngine(both.env, "podman").name).toBe("podman");
    const podman = makeStandIns(makeTestImage("find"), ["podman"]);
    expect(findEngine(podman.env).name).toBe("podman");
    expect(() => findEngine(podman.env, "docker")).toThrow(/--engine docker: docker is not on PATH/);
  });

  it("names both engines and --image-archive when neither is on PATH", () => {
    const error = (() => {
      try {
        findEngine({ PATH: "/nonexistent" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/docker or podman.*--image-archive/);
    expect(exitCodeOf(error)).toBe(2);
  });
});
