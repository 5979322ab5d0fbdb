// A parser for the small part of POSIX shell that the documentation's examples use, so that
// the examples test can run the cpctl commands in them: lists (newline, `;`, `&`, `&&`,
// `||`), pipelines, `NAME=VALUE` assignments before a command, redirections, comments, line
// continuations, single and double quotes, `$NAME`, `${NAME}`, `$(...)` and `<(...)`.
// Anything else (here-documents, globs, arithmetic, functions) is out of scope: the parser
// throws, and the example gets rewritten or marked not-run.

export type Part =
  | { kind: "text"; text: string }
  | { kind: "var"; name: string }
  | { kind: "subst"; script: Script }
  | { kind: "procsubst"; script: Script };

export interface Word {
  parts: Part[];
  /** The word as written, for messages. */
  source: string;
}

export interface Redirect {
  /** `>`, `>>`, `<`, `>&`, with the file descriptor written before it, e.g. `2>&`. */
  op: string;
  target: Word;
}

export interface SimpleCommand {
  assignments: { name: string; value: Word }[];
  words: Word[];
  redirects: Redirect[];
}

export type Pipeline = SimpleCommand[];

export interface AndOr {
  /** The first pipeline, then each following one with the operator before it. */
  first: Pipeline;
  rest: { op: "&&" | "||"; pipeline: Pipeline }[];
  /** Ended by `&`: run in the background. */
  background: boolean;
}

export type Script = AndOr[];

export class ShellSyntaxError extends Error {}

export function parseShell(source: string): Script {
  const parser = new Parser(source);
  const script = parser.script(false);
  if (!parser.done()) parser.fail("unexpected text");
  return script;
}

/** The literal text of a word when it has no expansion in it, else null. */
export function literal(word: Word): string | null {
  let text = "";
  for (const part of word.parts) {
    if (part.kind !== "text") return null;
    text += part.text;
  }
  return text;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const WORD_END = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

class Parser {
  private at = 0;
  constructor(private readonly src: string) {}

  done(): boolean {
    return this.at >= this.src.length;
  }

  fail(message: string): never {
    const line = this.src.slice(0, this.at).split("\n").length;
    throw new ShellSyntaxError(
      `${message} at line ${line}: ${JSON.stringify(this.src.slice(this.at, this.at + 30))}`,
    );
  }

  private peek(n = 0): string {
    return this.src[this.at + n] ?? "";
  }

  private startsWith(text: string): boolean {
    return this.src.startsWith(text, this.at);
  }

  /** Blanks, line continuations and comments; newlines too when `newlines`. */
  private skip(newlines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === " " || c === "\t" || (newlines && c === "\n")) this.at++;
      else if (c === "\\" && this.peek(1) === "\n") this.at += 2;
      else if (c === "#") while (!this.done() && this.peek() !== "\n") this.at++;
      else return;
    }
  }

  /** Up to the end of the text, or to the `)` that closes a substitution. */
  script(inSubst: boolean): Script {
    const script: Script = [];
    for (;;) {
      this.skip(true);
      if (this.done()) {
        if (inSubst) this.fail("unclosed $( or <(");
        return script;
      }
      if (this.peek() === ")") {
        if (!inSubst) this.fail("unmatched )");
        this.at++;
        return script;
      }
      if (this.peek() === ";") {
        this.at++;
        continue;
      }
      script.push(this.andOr());
    }
  }

  private andOr(): AndOr {
    const item: AndOr = { first: this.pipeline(), rest: [], background: false };
    for (;;) {
      this.skip(false);
      if (this.startsWith("&&") || this.startsWith("||")) {
        const op = this.src.slice(this.at, this.at + 2) as "&&" | "||";
        this.at += 2;
        this.skip(true);
        item.rest.push({ op, pipeline: this.pipeline() });
      } else if (this.peek() === "&") {
        this.at++;
        item.background = true;
        return item;
      } else return item;
    }
  }

  private pipeline(): Pipeline {
    const commands = [this.command()];
    for (;;) {
      this.skip(false);
      if (this.peek() === "|" && this.peek(1) !== "|") {
        this.at++;
        this.skip(true);
        commands.push(this.command());
      } else return commands;
    }
  }

  private command(): SimpleCommand {
    const command: SimpleCommand = { assignments: [], words: [], redirects: [] };
    for (;;) {
      this.skip(false);
      const c = this.peek();
      if (c === "" || c === "\n" || c === ";" || c === "&" || c === ")" || c === "|") break;
      const redirect = /^(\d*)(>>|>&|<&|>|<(?!\())/.exec(this.src.slice(this.at));
      if (redirect) {
        this.at += redirect[0].length;
        this.skip(false);
        command.redirects.push({ op: redirect[0], target: this.word() });
        continue;
      }
      const assignment =
        command.words.length === 0 ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(this.src.slice(this.at)) : null;
      if (assignment) {
        this.at += assignment[0].length;
        command.assignments.push({ name: assignment[1]!, value: this.word(true) });
        continue;
      }
      command.words.push(this.word());
    }
    if (command.words.length === 0 && command.assignments.length === 0) this.fail("expected a command");
    return command;
  }

  private word(mayBeEmpty = false): Word {
    const start = this.at;
    const parts: Part[] = [];
    const text = (t: string) => {
      const last = parts.at(-1);
      if (last?.kind === "text") last.text += t;
      else parts.push({ kind: "text", text: t });
    };
    for (;;) {
      const c = this.peek();
      if (c === "" || (WORD_END.has(c) && !(c === "<" && this.peek(1) === "("))) break;
      if (c === "\\") {
        if (this.peek(1) === "\n") {
          this.at += 2;
          break;
        }
        text(this.peek(1));
        this.at += 2;
      } else if (c === "`") {
        this.fail("backquotes are not supported: use $(...)");
      } else if (c === "'") {
        const end = this.src.indexOf("'", this.at + 1);
        if (end === -1) this.fail("unclosed '");
        text(this.src.slice(this.at + 1, end));
        this.at = end + 1;
      } else if (c === '"') {
        this.at++;
        parts.push(...this.doubleQuoted());
      } else if (c === "$" || c === "<") {
        const part = this.dollar();
        if (part) parts.push(part);
        else {
          text(c);
          this.at++;
        }
      } else {
        text(c);
        this.at++;
      }
    }
    if (parts.length === 0 && !mayBeEmpty && this.at === start) this.fail("expected a word");
    return { parts, source: this.src.slice(start, this.at) };
  }

  private doubleQuoted(): Part[] {
    const parts: Part[] = [];
    let buffer = "";
    const flush = () => {
      if (buffer) parts.push({ kind: "text", text: buffer });
      buffer = "";
    };
    for (;;) {
      const c = this.peek();
      if (c === "") this.fail('unclosed "');
      if (c === '"') {
        this.at++;
        break;
      }
      if (c === "\\" && '$`"\\\n'.includes(this.peek(1))) {
        if (this.peek(1) !== "\n") buffer += this.peek(1);
        this.at += 2;
      } else if (c === "$") {
        const part = this.dollar();
        if (part) {
          flush();
          parts.push(part);
        } else {
          buffer += c;
          this.at++;
        }
      } else if (c === "`") this.fail("backquotes are not supported: use $(...)");
      else {
        buffer += c;
        this.at++;
      }
    }
    flush();
    // An empty "" is still a word.
    return parts.length === 0 ? [{ kind: "text", text: "" }] : parts;
  }

  /** `$NAME`, `${NAME}`, `$(...)`, `<(...)`; null for a `$` that starts none of them. */
  private dollar(): Part | null {
    if (this.startsWith("$(") || this.startsWith("<(")) {
      const kind = this.peek() === "$" ? "subst" : "procsubst";
      if (this.startsWith("$((")) this.fail("arithmetic is not supported");
      this.at += 2;
      return { kind, script: this.script(true) };
    }
    if (this.startsWith("${")) {
      const end = this.src.indexOf("}", this.at);
      const name = this.src.slice(this.at + 2, end);
      if (end === -1 || !NAME.test(name) || NAME.exec(name)![0] !== name)
        this.fail("only ${NAME} is supported");
      this.at = end + 1;
      return { kind: "var", name };
    }
    if (this.peek() === "$") {
      const name = NAME.exec(this.src.slice(this.at + 1))?.[0];
      if (!name) return null;
      this.at += 1 + name.length;
      return { kind: "var", name };
    }
    return null;
  }
}
