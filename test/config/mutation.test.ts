// guardMutation: the profile/host line before a change, and confirmation for `confirm: true`
// profiles (and for commands that always ask). Through the CLI against the emulator, and as
// a unit with an injected prompt.
import { Readable } from "node:stream";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { GlobalFlags } from "../../src/context.js";
import { createContext } from "../../src/context-factory.js";
import { InterruptedError, OperationError, UsageError } from "../../src/errors.js";
import { exitCodeOf } from "../../src/exit-codes.js";
import { CANCELLED_MESSAGE, type ConfirmPrompt, guardMutation } from "../../src/operations/confirm.js";
import { closeTestEmulators, startTestEmulator, type TestEmulator } from "../helpers/emulator.js";
import { failure } from "../helpers/failure.js";
import { instantClock, runCli } from "../helpers/run-cli.js";
import { type Sandbox, sandbox } from "./fixtures.js";

const prompts = vi.hoisted(() => ({ loaded: 0, answer: null as null | (() => Promise<boolean>) }));
vi.mock("@inquirer/confirm", () => {
  prompts.loaded++;
  return {
    default: () => (prompts.answer ? prompts.answer() : Promise.resolve(false)),
  };
});

afterEach(async () => {
  prompts.answer = null;
  await closeTestEmulators();
});

const creates = (em: TestEmulator) => em.emulator.stats().requests["POST /v2/deployments"] ?? 0;

function profiles(s: Sandbox, em: TestEmulator) {
  s.user(
    [
      "profiles:",
      "  prod:",
      `    baseUrl: ${em.url}`,
      `    apiKey: \${env:EMU_KEY}`,
      "    confirm: true",
      "  dev:",
      `    baseUrl: ${em.url}`,
      `    apiKey: \${env:EMU_KEY}`,
      "",
    ].join("\n"),
  );
}

const createArgs = (name: string) => [
  "deploy",
  "create",
  "--name",
  name,
  "--source",
  "internal_container",
  "--image-uri",
  "registry.example.com/a:1",
];

describe("through the CLI", () => {
  test("a confirm profile off a terminal without --yes: exit 2, nothing sent", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const r = await runCli([...createArgs("guarded"), "--profile", "prod"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { EMU_KEY: em.apiKey },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `error: profile prod requires confirmation (confirm: true in profiles.prod.confirm in ${s.userFile}): pass --yes to create deployment guarded without a prompt`,
    );
    expect(creates(em)).toBe(0);
    expect(em.emulator.stats().total).toBe(0);
  });

  test("--no-input on a terminal is off a terminal too", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const r = await runCli([...createArgs("guarded"), "--profile", "prod", "--no-input"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { EMU_KEY: em.apiKey },
      tty: true,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--no-input was given");
    expect(creates(em)).toBe(0);
  });

  test("with --yes it proceeds", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const r = await runCli([...createArgs("confirmed"), "--profile", "prod", "--yes", "-o", "id"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { EMU_KEY: em.apiKey },
    });
    expect(r.code).toBe(0);
    expect(creates(em)).toBe(1);
    expect(prompts.loaded).toBe(0);
  });

  test("rollback and redeploy are changes too: exit 2 without --yes, nothing sent; with it they proceed", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const d = await em.createDeployment("gitrepo", "guarded");
    await em.patch(`/v2/deployments/${d.id}`, { source_revision_config: { repo_ref: "v2" } });
    const redeploys = () =>
      em.emulator.stats().requests["POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy"] ??
      0;
    const run = (args: string[]) =>
      runCli(["deploy", ...args, "guarded", "--profile", "prod"], {
        homeDir: s.home,
        cwd: s.cwd,
        env: { EMU_KEY: em.apiKey },
      });
    for (const command of ["rollback", "redeploy"]) {
      const refused = await run([command]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain("profile prod requires confirmation");
      expect(redeploys()).toBe(0);
    }
    for (const [n, command] of ["rollback", "redeploy"].entries()) {
      const r = await run([command, "--yes"]);
      expect(r.code, r.stderr).toBe(0);
      expect(redeploys()).toBe(n + 1);
    }
  });

  test("a profile without confirm proceeds without asking, and without loading the prompt library", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const r = await runCli([...createArgs("plain"), "--profile", "dev"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { EMU_KEY: em.apiKey },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("→");
    expect(creates(em)).toBe(1);
    expect(prompts.loaded).toBe(0);
  });

  test("on a terminal, stderr names the profile and host before the change", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const r = await runCli([...createArgs("seen"), "--profile", "dev"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { EMU_KEY: em.apiKey, NO_COLOR: "1" },
      tty: { stderr: true },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`→ profile dev (${em.url}): create deployment seen\n`);
  });

  test("with no profile the line says so, with the address", async () => {
    const em = await startTestEmulator();
    const r = await runCli(createArgs("anon"), {
      env: { CPCTL_BASE_URL: em.url, CPCTL_API_KEY: em.apiKey, NO_COLOR: "1" },
      tty: { stderr: true },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`→ no profile (${em.url}): create deployment anon\n`);
  });

  test("a patch confirmed after another writer changed the deployment stops: nothing is sent over that change", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const d = await em.createDeployment("internal_container", "shared", {
      secrets: [{ name: "A", value: "alpha-value" }],
    });
    const patches = () => em.emulator.stats().requests["PATCH /v2/deployments/{deployment_id}"] ?? 0;
    const options = { homeDir: s.home, cwd: s.cwd, env: { EMU_KEY: em.apiKey, NO_COLOR: "1" }, tty: true };
    prompts.answer = async () => {
      // While the user reads the preview, someone else adds a secret.
      await em.patch(`/v2/deployments/${d.id}`, {
        secrets: [
          { name: "A", value: "alpha-value" },
          { name: "B", value: "bravo" },
        ],
      });
      return true;
    };
    const raced = await runCli(
      ["deploy", "patch", "shared", "--secret", "C=charlie", "--profile", "prod"],
      options,
    );
    expect(raced.code).toBe(1);
    expect(raced.stderr).toContain(
      "was changed by someone else since cpctl read it (secrets.B): nothing was sent",
    );
    expect(patches()).toBe(1);
    expect(
      (await em.get(`/v2/deployments/${d.id}`)).json.secrets.map((x: { name: string }) => x.name),
    ).toEqual(["A", "B"]);

    prompts.answer = async () => true;
    const calm = await runCli(
      ["deploy", "patch", "shared", "--secret", "C=charlie", "--profile", "prod"],
      options,
    );
    expect(calm.code, calm.stderr).toBe(0);
    expect(
      (await em.get(`/v2/deployments/${d.id}`)).json.secrets.map((x: { name: string }) => x.name),
    ).toEqual(["A", "B", "C"]);
  });

  test("on a terminal a confirm profile asks; No cancels with exit 1 and sends nothing, Yes proceeds", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    const options = { homeDir: s.home, cwd: s.cwd, env: { EMU_KEY: em.apiKey, NO_COLOR: "1" }, tty: true };
    prompts.answer = async () => false;
    const no = await runCli([...createArgs("asked"), "--profile", "prod"], options);
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(`→ profile prod (${em.url}): create deployment asked\n`);
    expect(no.stderr).toContain(`error: ${CANCELLED_MESSAGE}\n`);
    expect(creates(em)).toBe(0);
    prompts.answer = async () => true;
    const yes = await runCli([...createArgs("asked"), "--profile", "prod"], options);
    expect(yes.code).toBe(0);
    expect(creates(em)).toBe(1);
  });

  test("Ctrl-C at the prompt exits 130 and sends nothing", async () => {
    const em = await startTestEmulator();
    const s = sandbox();
    profiles(s, em);
    prompts.answer = async () => {
      throw Object.assign(new Error("User force closed the prompt with SIGINT"), { name: "ExitPromptError" });
    };
    const r = await runCli([...createArgs("quit"), "--profile", "prod"], {
      homeDir: s.home,
      cwd: s.cwd,
      env: { EMU_KEY: em.apiKey },
      tty: true,
    });
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain("internal error");
    expect(creates(em)).toBe(0);
  });
});

describe("guardMutation as a unit", () => {
  async function ctxFor(options: { flags?: Partial<GlobalFlags>; tty?: boolean; confirm?: boolean } = {}) {
    let stderr = "";
    const tty = options.tty ?? true;
    const env = { CPCTL_BASE_URL: "https://user:pw@api.example.com/" };
    const s = sandbox();
    if (options.confirm) s.user("defaultProfile: prod\nprofiles:\n  prod:\n    confirm: true\n");
    const ctx = await createContext({
      argv: [],
      io: {
        stdout: { write: () => {}, isTTY: tty },
        stderr: {
          write: (text) => {
            stderr += text;
          },
          isTTY: tty,
        },
        stdin: { isTTY: tty, stream: Readable.from([]) },
      },
      env,
      cwd: s.cwd,
      homeDir: s.home,
      clock: instantClock(),
      signal: new AbortController().signal,
      flags: { color: false, input: true, ...options.flags },
      secrets: new Set(),
      onFormat: () => {},
    });
    return { ctx, stderr: () => stderr };
  }

  function recorder(answer: boolean | Error) {
    const questions: string[] = [];
    const prompt: ConfirmPrompt = async (_ctx, message) => {
      questions.push(message);
      if (answer instanceof Error) throw answer;
      return answer;
    };
    return { prompt, questions };
  }

  test("no confirm, not always: no question, and the target line on a terminal (without user or password)", async () => {
    const { ctx, stderr } = await ctxFor();
    const { prompt, questions } = recorder(false);
    await guardMutation(ctx, "patch deployment a", { prompt });
    expect(questions).toEqual([]);
    expect(stderr()).toBe("→ no profile (https://api.example.com): patch deployment a\n");
  });

  test("a confirm profile asks; yes resolves", async () => {
    const { ctx } = await ctxFor({ confirm: true });
    const { prompt, questions } = recorder(true);
    await guardMutation(ctx, "patch deployment a", { prompt });
    expect(questions).toEqual(["Patch deployment a on profile prod (https://api.example.com)?"]);
  });

  test("no is an error with exit code 1: cancelled, nothing was changed", async () => {
    const { ctx } = await ctxFor({ confirm: true });
    const error = await guardMutation(ctx, "patch deployment a", { prompt: recorder(false).prompt }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(OperationError);
    expect(error.message).toBe("cancelled: nothing was changed");
    expect(exitCodeOf(error)).toBe(1);
  });

  test("Ctrl-C from the prompt is exit 130", async () => {
    const { ctx } = await ctxFor({ confirm: true });
    const error = await guardMutation(ctx, "x", { prompt: recorder(new InterruptedError()).prompt }).catch(
      (e) => e,
    );
    expect(exitCodeOf(error)).toBe(130);
  });

  test("--yes answers for the user", async () => {
    const { ctx } = await ctxFor({ confirm: true, flags: { yes: true } });
    const { prompt, questions } = recorder(false);
    await guardMutation(ctx, "delete deployment a", { always: true, prompt });
    expect(questions).toEqual([]);
  });

  test("always asks even without a confirm profile; off a terminal it needs --yes", async () => {
    const on = await ctxFor();
    const asked = recorder(true);
    await guardMutation(on.ctx, "delete deployment a", { always: true, prompt: asked.prompt });
    expect(asked.questions).toHaveLength(1);

    const off = await ctxFor({ tty: false });
    const error = await failure(
      guardMutation(off.ctx, "delete deployment a", { always: true, prompt: asked.prompt }),
      UsageError,
    );
    expect(error.message).toBe(
      "delete asks for confirmation: pass --yes to delete deployment a without a prompt",
    );
    expect(off.stderr()).toBe("");
  });
});
