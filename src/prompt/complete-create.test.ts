// The interactive-create flow with scripted answers (the real prompts are driven through a
// pseudo-terminal in test/terminal/interactive-create.test.ts).
import { describe, expect, test } from "vitest";
import { failure } from "../../test/helpers/failure.js";
import type { ApiClient } from "../api/client.js";
import type { Ctx, GlobalFlags } from "../context.js";
import { InterruptedError, OperationError, UsageError } from "../errors.js";
import { exitCodeOf } from "../exit-codes.js";
import { NO_PAINT } from "../output/safe-text.js";
import { completeCreateBody } from "./complete-create.js";
import { missingValues, requiredFor, rerunCommand, shellQuote } from "./missing.js";
import type { Choice, Prompter } from "./prompter.js";

const INTEGRATION = { id: "0e7880cf-835f-56f2-9d2c-37d4af5797c9", installation_id: 1, name: "acme-org" };
const ALT_INTEGRATION = { id: "62c2798e-d3d4-5036-81be-87fb61a5782c", installation_id: 2, name: "acme-alt" };

interface Asked {
  kind: "input" | "select" | "confirm";
  message: string;
  choices?: Choice<string>[];
  default?: unknown;
}

/** Answers questions in order; each answer may be a function of the question. */
function scripted(answers: (string | boolean | Error)[]) {
  const asked: Asked[] = [];
  const next = (question: Asked) => {
    asked.push(question);
    if (answers.length === 0) throw new Error(`unexpected question: ${question.message}`);
    const answer = answers.shift()!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const prompter: Prompter = {
    input: async (q) => {
      const answer = next({ kind: "input", message: q.message, default: q.default }) as string;
      const value = answer === "" && q.default !== undefined ? q.default : answer;
      const valid = q.validate?.(value) ?? true;
      if (valid !== true) throw new Error(`invalid answer '${value}' to '${q.message}': ${valid}`);
      return value;
    },
    select: async <T extends string>(q: { message: string; choices: Choice<T>[] }) => {
      const answer = next({ kind: "select", message: q.message, choices: q.choices }) as string;
      const choice = q.choices.find((c) => c.value === answer || c.name.startsWith(answer));
      if (!choice) throw new Error(`no choice '${answer}' in ${q.message}`);
      return choice.value;
    },
    confirm: async (q) => next({ kind: "confirm", message: q.message, default: q.default }) as boolean,
  };
  return { prompter, asked, left: () => answers.length };
}

function fakeCtx(
  options: {
    profileConfirms?: boolean;
    interactive?: boolean;
    argv?: string[];
    flags?: Partial<GlobalFlags>;
    integrations?: unknown[][];
    /** What each integration's repositories listing answers (by path); none: an empty list. */
    repositories?: Record<string, unknown>;
  } = {},
) {
  let stderr = "";
  const [main, alt] = options.integrations ?? [[INTEGRATION], [ALT_INTEGRATION]];
  const asked: string[] = [];
  const api = {
    get: async (path: string) => {
      asked.push(path);
      if (path.endsWith("/repos")) {
        const answer = options.repositories?.[path] ?? [];
        if (answer instanceof Error) throw answer;
        return { body: answer };
      }
      return { body: path.includes("/alt/") ? alt : main };
    },
  } as unknown as ApiClient;
  const ctx = {
    argv: options.argv ?? ["deploy", "create"],
    interactive: options.interactive ?? true,
    flags: { color: true, input: true, ...options.flags },
    io: {
      stdin: { isTTY: options.interactive ?? true },
      stdout: { isTTY: options.interactive ?? true, write: () => {} },
      stderr: {
        isTTY: options.interactive ?? true,
        write: (text: string) => {
          stderr += text;
        },
      },
    },
    env: {},
    paint: NO_PAINT,
    log: {
      info: () => {},
      warn: (m: string) => {
        stderr += `warning: ${m}\n`;
      },
      debug: () => {},
      debugEnabled: false,
    },
    api: async () => api,
    settings: async () => ({ confirm: options.profileConfirms ?? false }),
  } as unknown as Ctx;
  return { ctx, stderr: () => stderr, asked };
}

const emptyBody = (): Record<string, unknown> => ({
  source_config: {},
  source_revision_config: {},
  secrets: [],
});

describe("what each source requires, read from the model's rules", () => {
  test.each([
    ["gitrepo", ["--integration-id", "--repo-url", "--agent-config-path"]],
    ["external_container", ["--image-uri"]],
    ["internal_container", []],
    ["internal_source", ["--agent-config-path"]],
  ] as const)("%s needs %j", (source, flags) => {
    expect(requiredFor(source).map((f) => f.flag)).toEqual(flags);
  });

  test("values given by flags or a file are not missing", () => {
    const body = { ...emptyBody(), name: "a", source: "gitrepo", source_config: { repo_url: "https://x" } };
    expect(missingValues(body).fields.map((f) => f.flag)).toEqual([
      "--integration-id",
      "--agent-config-path",
    ]);
  });

  test("without a source only name and source can be named", () => {
    expect(missingValues(emptyBody()).fields.map((f) => f.flag)).toEqual(["--name", "--source"]);
    expect(missingValues(emptyBody()).source).toBeNull();
  });
});

describe("the command to run again", () => {
  test("quotes what the shell would split or expand, and appends placeholders before --", () => {
    const fields = requiredFor("external_container");
    expect(rerunCommand(["deploy", "create", "--name", "my agent", "--set", "a=$HOME"], fields)).toBe(
      "cpctl deploy create --name 'my agent' --set 'a=$HOME' --image-uri <image>",
    );
    expect(rerunCommand(["deploy", "create", "--", "x"], fields)).toBe(
      "cpctl deploy create --image-uri <image> -- x",
    );
  });
  test("shellQuote", () => {
    expect(shellQuote("plain-word_1.2:3/4")).toBe("plain-word_1.2:3/4");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote("")).toBe("''");
  });
});

describe("off a terminal", () => {
  test("a missing value is a usage error (exit 2) naming every missing flag and the command to run", async () => {
    const { ctx } = fakeCtx({ interactive: false, argv: ["deploy", "create", "--source", "gitrepo"] });
    const body = { ...emptyBody(), source: "gitrepo" };
    const usage = await failure(completeCreateBody(ctx, body), UsageError);
    expect(exitCodeOf(usage)).toBe(2);
    expect(usage.message).toBe(
      "missing required values: --name, --integration-id, --repo-url, --agent-config-path",
    );
    expect(usage.hints.join("\n")).toContain("Not prompting: stdin is not a terminal");
    expect(usage.hints.at(-1)).toBe(
      "  cpctl deploy create --source gitrepo --name <name> --integration-id <integration-uuid> --repo-url <git-url> --agent-config-path <path/to/agent.json>",
    );
  });

  test("nothing missing: nothing asked, nothing said", async () => {
    const { ctx, stderr } = fakeCtx({ interactive: false });
    const body = { ...emptyBody(), name: "a", source: "internal_container" };
    await completeCreateBody(ctx, body);
    expect(stderr()).toBe("");
  });
});

const REPOSITORIES = [
  {
    host_integration_id: ALT_INTEGRATION.id,
    id: 7,
    name: "agent",
    owner: "acme-alt",
    url: "https://github.com/acme-alt/agent",
    default_branch: "trunk",
  },
];

describe("on a terminal: the integration's repositories", () => {
  const altRepos = `/v1/integrations/alt/gitrepo/${ALT_INTEGRATION.id}/repos`;

  test("offered from the integration's own listing; the chosen one's default branch is the ref offered", async () => {
    const { ctx, asked } = fakeCtx({ repositories: { [altRepos]: REPOSITORIES } });
    const body = { ...emptyBody(), name: "a", source: "gitrepo" };
    const script = scripted([ALT_INTEGRATION.id, "acme-alt/agent", "", "", true]);
    await completeCreateBody(ctx, body, script.prompter);
    expect(script.asked.map((q) => q.message)).toEqual([
      "Git integration",
      "Git repository",
      "Git ref (a branch name, or refs/tags/TAG)",
      "Path of the agent configuration file in the source",
      "Create deployment 'a'?",
    ]);
    expect(script.asked[1]!.choices!.map((c) => c.name)).toEqual(["acme-alt/agent", "another repository..."]);
    expect(script.asked[2]!.default).toBe("trunk");
    expect(asked).toContain(altRepos);
    expect(body).toMatchObject({
      source_config: { repo_url: "https://github.com/acme-alt/agent" },
      source_revision_config: { repo_ref: "trunk" },
    });
  });

  test("another repository: its URL typed; a listing that fails: a warning, the URL typed", async () => {
    const other = fakeCtx({ repositories: { [altRepos]: REPOSITORIES } });
    const body = { ...emptyBody(), name: "a", source: "gitrepo" };
    const script = scripted([ALT_INTEGRATION.id, "another", "https://git.example.com/x", "", "", true]);
    await completeCreateBody(other.ctx, body, script.prompter);
    expect(body).toMatchObject({
      source_config: { repo_url: "https://git.example.com/x" },
      source_revision_config: { repo_ref: "main" },
    });

    const failing = fakeCtx({ repositories: { [altRepos]: new Error("connection reset") } });
    const again = scripted([ALT_INTEGRATION.id, "https://git.example.com/y", "", "", true]);
    await completeCreateBody(failing.ctx, { ...emptyBody(), name: "b", source: "gitrepo" }, again.prompter);
    expect(again.asked[1]!.message).toBe("Git repository URL");
    expect(failing.stderr()).toContain(
      `warning: could not list the repositories of integration ${ALT_INTEGRATION.id} (connection reset): type the URL`,
    );
  });
});

describe("on a terminal", () => {
  test("asks name, source, integration (both listings), repo URL, ref and agent config path; shows and confirms", async () => {
    const { ctx, stderr } = fakeCtx({ argv: ["deploy", "create", "--secret", "T=v"] });
    const body = { ...emptyBody(), secrets: [{ name: "T", value: "v" }] };
    const script = scripted([
      "my-agent",
      "gitrepo",
      ALT_INTEGRATION.id,
      "https://github.com/acme/agent",
      "",
      "",
      true,
    ]);
    await completeCreateBody(ctx, body, script.prompter);
    expect(script.asked.map((q) => [q.kind, q.message])).toEqual([
      ["input", "Deployment name"],
      ["select", "Source"],
      ["select", "Git integration"],
      ["input", "Git repository URL"],
      ["input", "Git ref (a branch name, or refs/tags/TAG)"],
      ["input", "Path of the agent configuration file in the source"],
      ["confirm", "Create deployment 'my-agent'?"],
    ]);
    expect(script.asked[2]!.choices!.map((c) => c.value)).toEqual([INTEGRATION.id, ALT_INTEGRATION.id]);
    expect(script.asked[2]!.choices![1]!.name).toContain("(alt)");
    expect(body).toMatchObject({
      name: "my-agent",
      source: "gitrepo",
      source_config: { integration_id: ALT_INTEGRATION.id, repo_url: "https://github.com/acme/agent" },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent.json" },
    });
    expect(stderr()).toContain('"name": "my-agent"');
    expect(stderr()).toContain('"value": "****"');
    expect(stderr()).not.toContain('"value": "v"');
  });

  test("declining creates nothing: exit 1 with a clear message", async () => {
    const { ctx } = fakeCtx();
    const body = { ...emptyBody(), source: "external_container" };
    const script = scripted(["api", "registry.example.com/api:1", false]);
    const error = await failure(completeCreateBody(ctx, body, script.prompter), OperationError);
    expect(error.message).toBe("cancelled: nothing was created");
    expect(exitCodeOf(error)).toBe(1);
  });

  test("--yes shows the request but does not ask to confirm; --dry-run neither shows nor asks", async () => {
    const yes = fakeCtx({ flags: { yes: true } });
    const script = scripted(["api", "registry.example.com/api:1"]);
    await completeCreateBody(yes.ctx, { ...emptyBody(), source: "external_container" }, script.prompter);
    expect(script.left()).toBe(0);
    expect(yes.stderr()).toContain("The request");

    const dry = fakeCtx({ argv: ["deploy", "create", "--dry-run"] });
    const dryScript = scripted(["api", "registry.example.com/api:1"]);
    await completeCreateBody(dry.ctx, { ...emptyBody(), source: "external_container" }, dryScript.prompter);
    expect(dryScript.asked.map((q) => q.kind)).toEqual(["input", "input"]);
    expect(dry.stderr()).toBe("");
  });

  test("a profile with confirm: true asks instead (one question, naming the profile)", async () => {
    const { ctx, stderr } = fakeCtx({ profileConfirms: true });
    const script = scripted(["api", "registry.example.com/api:1"]);
    await completeCreateBody(ctx, { ...emptyBody(), source: "external_container" }, script.prompter);
    expect(script.asked.map((q) => q.kind)).toEqual(["input", "input"]);
    expect(stderr()).toContain("The request");
  });

  test("an invalid body is left for validation to report: no confirmation", async () => {
    const { ctx } = fakeCtx();
    // build_on_push with a tag ref breaks a rule the caller reports with where each value came from.
    const body = {
      ...emptyBody(),
      source: "gitrepo",
      source_config: { build_on_push: true, repo_url: "https://x", integration_id: INTEGRATION.id },
      source_revision_config: { repo_ref: "refs/tags/v1", agent_config_path: "agent.json" },
    };
    const script = scripted(["tagged"]);
    await completeCreateBody(ctx, body, script.prompter);
    expect(script.asked.map((q) => q.kind)).toEqual(["input"]);
  });

  test("a bad name is refused at the prompt with the model's own message", async () => {
    const { ctx } = fakeCtx();
    // The scripted prompter fails on an invalid answer; the real one shows the message and asks again.
    const script = scripted(["x".repeat(129)]);
    await expect(
      completeCreateBody(ctx, { ...emptyBody(), source: "internal_container" }, script.prompter),
    ).rejects.toThrow("the name must be at most 128 characters");
    // Answers are trimmed: stray spaces around a name are not kept.
    const body: Record<string, unknown> = { ...emptyBody(), source: "internal_container" };
    await completeCreateBody(ctx, body, scripted([" padded ", true]).prompter);
    expect(body.name).toBe("padded");
  });

  test("with no integration installed, asks for an integration ID and checks it is a UUID", async () => {
    const { ctx, stderr } = fakeCtx({ integrations: [[], []] });
    const script = scripted(["not-a-uuid"]);
    const body = { ...emptyBody(), name: "a", source: "gitrepo" };
    await expect(completeCreateBody(ctx, body, script.prompter)).rejects.toThrow(/expected a UUID/);
    expect(script.asked[0]).toMatchObject({ kind: "input", message: "Git integration ID (UUID)" });
    expect(stderr()).toContain("no git integrations are installed");
  });

  test.each(["ExitPromptError", "AbortPromptError"])(
    "%s (Ctrl-C, SIGTERM) becomes an interruption: exit 130",
    async (name) => {
      const { ctx } = fakeCtx();
      const ctrlC = Object.assign(new Error("User force closed the prompt with SIGINT"), { name });
      const script = scripted([ctrlC]);
      const error = await failure(completeCreateBody(ctx, emptyBody(), script.prompter), InterruptedError);
      expect(exitCodeOf(error)).toBe(130);
      expect(error).toMatchObject({ message: "cancelled: nothing was changed", quiet: false });
    },
  );
});
