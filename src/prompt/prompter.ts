// The questions the CLI can ask, behind a small interface so that the flows are tested with
// scripted answers and the real prompts (@inquirer/input, select and confirm) load only
// when a question is actually asked on a terminal.
import { InterruptedError, OperationError } from "../errors.js";
import { colorEnabled } from "../output/format.js";
import { visible } from "../output/safe-text.js";
import type { RunContext } from "../run-context.js";

export interface Choice<T extends string> {
  value: T;
  name: string;
  description?: string;
}

export interface Prompter {
  /** Free text; `validate` returns true or the message to show. */
  input(question: {
    message: string;
    default?: string;
    validate?: (value: string) => true | string;
  }): Promise<string>;
  select<T extends string>(question: { message: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  confirm(question: { message: string; default: boolean }): Promise<boolean>;
}

/** What prompting uses of a run: the terminal's streams, what decides colour, Ctrl-C. */
export type PromptContext = Pick<RunContext, "io" | "env" | "signal"> & {
  readonly flags: { readonly color: boolean };
};

/** Prompts on the terminal: stderr when it is one (stdout keeps only results), else stdout. */
export async function terminalPrompter(ctx: PromptContext): Promise<Prompter> {
  const output =
    (ctx.io.stderr.isTTY && ctx.io.stderr.stream) ||
    (ctx.io.stdout.isTTY && ctx.io.stdout.stream) ||
    undefined;
  if (!output) throw new OperationError("cannot prompt: no terminal to show the question on", "no_terminal");
  // Each prompt on its own: the three packages load a fraction of @inquirer/prompts' dozen.
  const [{ default: input }, { default: select }, { default: confirm }] = await Promise.all([
    import("@inquirer/input"),
    import("@inquirer/select"),
    import("@inquirer/confirm"),
  ]);
  const context = { input: ctx.io.stdin.stream, output, signal: ctx.signal, clearPromptOnDone: false };
  const color = colorEnabled({ isTTY: true, env: ctx.env, colorFlag: ctx.flags.color !== false });
  const theme = color ? undefined : PLAIN_THEME;
  // What a question shows may come from a server (an integration's name): shown, never acted on.
  const shown = (choice: Choice<string>) => ({
    ...choice,
    name: visible(choice.name),
    description: choice.description === undefined ? undefined : visible(choice.description),
  });
  return {
    input: (q) =>
      asked(input({ message: visible(q.message), default: q.default, validate: q.validate, theme }, context)),
    select: <T extends string>(q: { message: string; choices: Choice<T>[]; default?: T }) =>
      asked(
        select<T>(
          {
            message: visible(q.message),
            choices: q.choices.map(shown) as Choice<T>[],
            default: q.default,
            theme: theme as never,
          },
          context,
        ) as Promise<T>,
      ),
    confirm: (q) => asked(confirm({ message: visible(q.message), default: q.default, theme }, context)),
  };
}

/** Ctrl-C (or SIGTERM) at a prompt: exit 130 with one line that says so, no stack. */
async function asked<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    throw promptError(error);
  }
}

/** What a Ctrl-C at a question says. */
export const CANCELLED_AT_PROMPT = "cancelled: nothing was changed";

export function promptError(error: unknown): unknown {
  const name = error instanceof Error ? error.name : "";
  if (name === "ExitPromptError" || name === "AbortPromptError" || name === "CancelPromptError") {
    // Ctrl-C at a question is an answer: the command stops (130), saying what became of it.
    // Every question comes before anything is sent.
    return new InterruptedError(CANCELLED_AT_PROMPT);
  }
  return error;
}

const plain = (text: string) => text;

/**
 * Inquirer's default theme colours through node:util styleText, which knows nothing of
 * --no-color. Without colour every style is the identity.
 */
const PLAIN_THEME = {
  prefix: { idle: "?", done: "✔" },
  spinner: { interval: 80, frames: ["-", "\\", "|", "/"] },
  style: {
    answer: plain,
    message: plain,
    error: (text: string) => `> ${text}`,
    defaultAnswer: (text: string) => `(${text})`,
    help: plain,
    highlight: plain,
    key: (text: string) => `<${text}>`,
    disabled: plain,
    description: plain,
    keysHelpTip: (keys: [string, string][]) => keys.map(([key, action]) => `${key} ${action}`).join(" • "),
    // The default side of (Y/n): upper case instead of colour.
    confirmDefault: (text: string) => text.charAt(0).toUpperCase() + text.slice(1),
  },
};
