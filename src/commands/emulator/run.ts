// `cpctl emulator`: the local control plane in the foreground until Ctrl-C or SIGTERM.
import { parseKeyGrant } from "../../emulator/api/key-grants.js";
import { API_KEYS_ENV, CONTROL_TOKEN_ENV, DEFAULT_PORT, DEFAULT_STAGE_MS } from "../../emulator/defaults.js";
import { EmulatorStartError, startEmulator } from "../../emulator/server.js";
import { OperationError } from "../../errors.js";
import type { TerminalJob } from "../../io.js";
import { writeText } from "../../output/safe-text.js";
import { collect, examples } from "../parsers.js";
import { defineCommand } from "../spec.js";
import { emulatorKeySource, parseEmulatorArgs } from "./run-args.js";

export default defineCommand({
  configure: (command) =>
    command
      .option("--port <port>", `port to listen on; 0 picks a free one (default ${DEFAULT_PORT})`)
      .option("--host <host>", "address to listen on (default 127.0.0.1)")
      .option(
        "--registry-port <port>",
        "port of the image registry (push tokens, docs/emulator.md); default: the next after --port, or a free one with --port 0",
      )
      .option(
        "--agents-port <port>",
        "port of the stand-in agent servers, where every deployment's custom_url answers /ok and /info; " +
          "default: two after --port, or a free one with --port 0",
      )
      .option(
        "--state <file>",
        "keep state in this file (every change saved before it is answered); default: memory only",
      )
      .option("--stage-ms <ms>", `how long each revision stage takes (default ${DEFAULT_STAGE_MS})`)
      .option(
        "--api-key <key>",
        "accept only this API key or token (repeatable): KEY acts for its own tenant (printed at start-up), " +
          "KEY=TENANT[,TENANT...] for those tenants (several: the tenant header picks one); " +
          `without it (or ${API_KEYS_ENV}) any non-empty key or token is accepted`,
        collect,
      )
      .option(
        "--control-token <token>",
        "the token the emulator-wide controls (clock, faults, stats, reset) require in X-Control-Token; " +
          `with --api-key they are refused without one (default: ${CONTROL_TOKEN_ENV})`,
      )
      .option("--tenant-header <name>", "header that carries the tenant ID (default X-Tenant-Id)")
      .addHelpText(
        "after",
        `\nThe first line on stdout is \`listening on http://HOST:PORT\`; then stderr names the tenant each
key acts for (key #1, #2, ... in the order given; never the key). Without keys, any key works
and may name any tenant in the tenant header (for your own machine only).

Keys and the control token are secrets, and a flag is seen by every user of the machine
(\`ps\`): give them in the environment instead. ${API_KEYS_ENV} holds keys separated by
white space (spaces, tabs or line breaks), each KEY or KEY=TENANT[,TENANT...];
${CONTROL_TOKEN_ENV} the control token (the controls send it from the same variable). A
flag wins over its variable; a variable that is set but empty is refused (exit 2), rather
than taken for none.

Test controls live under /_emulator/ (see docs/emulator.md): those touching a tenant's data
take its credentials; clock, faults, stats and reset need X-Control-Token with a control
token, and are refused with keys and no token.
Requests from web pages are refused: a foreign Origin, a Host that is not a loopback name
while listening on loopback, a control POST without Content-Type: application/json.
Every deployment's custom_url is http://HOST:AGENTS_PORT/<its ID> (the third stdout line),
where a stand-in agent server answers GET /ok (200 once a revision is DEPLOYED, 503 before,
500 once \`cpctl emulator health\` made it unhealthy) and GET /info, with the tenant's key.
Upload URLs expire 15 minutes (emulator clock) after issue and take one upload; objects are
write-once. In memory, uploads are capped at 256 MiB in all. With --state, a killed
emulator's lock is taken over at once on the same machine; delete FILE.lock to free one left
by an emulator in another container or on another host.
${examples(
  "cpctl emulator",
  "cpctl emulator --port 0 --stage-ms 50 --state ./cp.state.json",
  "cpctl emulator --api-key dev-key --api-key ci-key --control-token ctl-secret",
  `${API_KEYS_ENV}="dev-key ci-key" ${CONTROL_TOKEN_ENV}=ctl-secret cpctl emulator`,
  "cpctl emulator --api-key org-key=0a0a0a0a-0000-4000-8000-000000000000,0b0b0b0b-0000-4000-8000-000000000000",
)}`,
      ),
  run: async (ctx, _args, options) => {
    // The run's environment, never process.env (tests run this in-process).
    const settings = parseEmulatorArgs(options, ctx.env);
    // Whatever may quote one (an error, a message), no key or token is printed.
    for (const spec of settings.apiKeys ?? []) {
      const grant = parseKeyGrant(spec);
      ctx.rememberSecret(typeof grant === "string" ? spec : grant.key);
    }
    if (settings.controlToken) ctx.rememberSecret(settings.controlToken);
    const emulator = await startEmulator(settings).catch((error: unknown) => {
      // The emulator's own error, for the CLI to print as it is (exit 1): not a bug of ours.
      throw error instanceof EmulatorStartError ? new OperationError(error.message, error.code) : error;
    });
    writeText(
      ctx.io.stdout,
      `listening on ${emulator.url}\nregistry listening on ${emulator.registry.url}\nagent servers listening on ${emulator.agents.url}\n`,
    );
    const keySource = emulatorKeySource(options, ctx.env);
    for (const line of emulator.describeKeys(keySource ?? undefined)) ctx.log.info(line);
    ctx.log.info(`local control plane ready; ${howToStop(ctx.io.job)}`);
    // Runs until Ctrl-C or SIGTERM; stopping a server on request is a success (exit 0).
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await emulator.close();
    ctx.log.info("stopped");
  },
});

/** Words that stop it where it runs: Ctrl-C does not reach a background job (`cpctl emulator &`). */
function howToStop(job: TerminalJob | undefined): string {
  return job?.background ? `kill ${job.pid} stops it (or fg, then Ctrl-C)` : "Ctrl-C stops it";
}
