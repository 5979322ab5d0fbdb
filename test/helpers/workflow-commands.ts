// The workflow commands a GitHub Actions runner would find in a step's output, found as the
// runner finds them (actions/runner: ActionCommandManager.TryProcessCommand tries
// ActionCommand.TryParseV2, then the legacy TryParse):
// - a line (split at \n, \r\n or \r) that starts with `::` once its leading white space is
//   trimmed (.NET's TrimStart), with a registered command name before the next `::`;
// - or, anywhere in a line, `##[NAME ...]` with NAME registered;
// - `stop-commands` pauses all of it until its token comes back.
// A test asserts that the only commands in cpctl's output are the ones cpctl meant to write.

const REGISTERED = new Set([
  "set-env",
  "set-output",
  "save-state",
  "add-mask",
  "add-path",
  "add-matcher",
  "remove-matcher",
  "debug",
  "warning",
  "error",
  "notice",
  "group",
  "endgroup",
  "echo",
  "stop-commands",
]);

/** char.IsWhiteSpace, which String.TrimStart trims. */
const DOTNET_WHITESPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;

export interface WorkflowCommand {
  command: string;
  properties: Record<string, string>;
  data: string;
}

const unescapeData = (text: string) => text.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");
const unescapeProperty = (text: string) => unescapeData(text).replace(/%3A/g, ":").replace(/%2C/g, ",");

function parseV2(line: string, registered: Set<string>): WorkflowCommand | null {
  const message = line.replace(DOTNET_WHITESPACE, "");
  if (!message.startsWith("::")) return null;
  const end = message.indexOf("::", 2);
  if (end < 0) return null;
  const info = message.slice(2, end);
  const space = info.indexOf(" ");
  const command = space < 0 ? info : info.slice(0, space);
  if (!registered.has(command)) return null;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(",")
      .filter(Boolean)) {
      const eq = pair.indexOf("=");
      if (eq > 0) properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
    }
  }
  return { command, properties, data: unescapeData(message.slice(end + 2)) };
}

function parseV1(line: string, registered: Set<string>): WorkflowCommand | null {
  const prefix = line.indexOf("##[");
  if (prefix < 0) return null;
  const close = line.indexOf("]", prefix);
  if (close < 0) return null;
  const info = line.slice(prefix + 3, close);
  const space = info.indexOf(" ");
  const command = space < 0 ? info : info.slice(0, space);
  if (!registered.has(command)) return null;
  return { command, properties: {}, data: line.slice(close + 1) };
}

/** Every command the runner would act on, in order. */
export function workflowCommands(output: string): WorkflowCommand[] {
  const found: WorkflowCommand[] = [];
  const registered = new Set(REGISTERED);
  let stopToken: string | null = null;
  for (const line of output.split(/\r\n|\n|\r/)) {
    const command = parseV2(line, registered) ?? parseV1(line, registered);
    if (!command) continue;
    if (stopToken !== null) {
      if (command.command === stopToken) {
        registered.delete(stopToken);
        stopToken = null;
      }
      continue;
    }
    if (command.command === "stop-commands") {
      stopToken = command.data;
      registered.add(stopToken);
    }
    found.push(command);
  }
  return found;
}
