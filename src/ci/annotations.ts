// An error as GitHub Actions annotations (`::error title=...::message`), on stderr: the runner
// reads workflow commands from both streams, and stdout carries only results. A line of the
// message that places a problem in a file, `deploy.yaml:12: ...` (cpctl's way of naming where
// a deployment file, a YAML or JSON syntax error or a secrets file goes wrong), gets an
// annotation of its own at that file and line, which GitHub shows beside the line in a pull
// request's diff. Paths are given relative to the workspace (GITHUB_WORKSPACE), as the runner
// expects; a file outside it, or one that is not there, is named in the text only.
import { statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { OutStream } from "../io.js";
import { writeWorkflowCommand } from "../output/workflow-commands.js";

interface ErrorAnnotation {
  title: string;
  /** The whole message, hints included, line by line. */
  message: string;
  /** The working directory, which the file names in the message are relative to. */
  cwd: string;
  /** GITHUB_WORKSPACE: where the repository is checked out. */
  workspace: string | undefined;
}

interface Located {
  file: string;
  line: number;
  text: string;
}

/** `FILE:LINE: problem`, indented or not: a problem cpctl places in a file. */
const LOCATED = /^\s*([^\s:][^:\n]*):(\d+): (.*)$/;

export function annotateError(stderr: OutStream, annotation: ErrorAnnotation): void {
  // The lines before the first located one introduce the problems (`deploy.yaml is not
  // valid:`); the lines after a located one, up to the next, belong to it (a key may hold a
  // line break; the last problem takes the hints).
  const header: string[] = [];
  const problems: (Located & { more: string[] })[] = [];
  for (const line of annotation.message.split("\n")) {
    const match = LOCATED.exec(line);
    const file = match ? inWorkspace(match[1]!, annotation) : null;
    if (match && file !== null) problems.push({ file, line: Number(match[2]), text: line.trim(), more: [] });
    else if (problems.length > 0) problems.at(-1)!.more.push(line);
    else header.push(line);
  }
  if (problems.length === 0) {
    writeWorkflowCommand(stderr, "error", annotation.message, { title: annotation.title });
    return;
  }
  for (const problem of problems) {
    writeWorkflowCommand(stderr, "error", [...header, problem.text, ...problem.more].join("\n"), {
      file: problem.file,
      line: problem.line,
      title: annotation.title,
    });
  }
}

/** The file's path relative to the workspace, "/"-separated, or null when it is not a file in it. */
function inWorkspace(name: string, annotation: ErrorAnnotation): string | null {
  const path = resolve(annotation.cwd, name);
  try {
    if (!statSync(path).isFile()) return null;
  } catch {
    return null;
  }
  const within = relative(resolve(annotation.cwd, annotation.workspace || "."), path);
  if (within === "" || within.startsWith("..") || isAbsolute(within)) return null;
  return within.split(sep).join("/");
}
