/**
 * `cpctl/emulator`: the local control plane, started from your own tests.
 *
 * ```ts
 * import { startEmulator } from "cpctl/emulator";
 * const emulator = await startEmulator();
 * // run your deploy script with CPCTL_BASE_URL=emulator.url, then:
 * await emulator.controls.failNext({ stage: "BUILDING" });
 * await emulator.close();
 * ```
 *
 * It is the emulator `cpctl emulator` runs: every endpoint of the control plane API on
 * loopback, its validation, status codes and error bodies, revisions that walk the real
 * stages, and its controls (docs/emulator.md in cpctl's repository), here as typed calls on
 * the emulator itself. The defaults suit tests: a free port, stages of 0 ms, state in memory.
 *
 * @module
 */
// The one module users import (package.json "exports": "./emulator"; the build bundles it
// and ships its type declarations, scripts/build-emulator.mjs). Its types name only what is
// declared here and the plain shapes of model/emulator-controls.ts, so that the declarations
// stand alone (no zod, no Node types). Keep it small: every member is a promise to users.
import type { EmulatorClock, FailRule, HealthControlAnswer } from "../model/emulator-controls.js";
import type { RevisionStatus } from "../model/enums.js";
import { formatPath } from "../model/issue-path.js";
import { parseDuration } from "../util/duration.js";
import { parseKeyGrant } from "./api/key-grants.js";
import { HttpError } from "./responses.js";
import { ManualClock, type RunningEmulator, startEmulator as startServer } from "./server.js";

export type { EmulatorClock, FailRule, HealthControlAnswer, RevisionStatus };

/** How to start an emulator: every member optional, the defaults made for tests. */
export interface StartEmulatorOptions {
  /**
   * How long each stage of a revision lasts, in milliseconds. Default 0: a revision is
   * `DEPLOYED` (or failed, see {@link EmulatorControls.failNext}) as soon as it is created.
   * `cpctl emulator` uses 1500.
   */
  stageMs?: number;
  /**
   * The only API keys (or bearer tokens) accepted, each `KEY` (it acts for a tenant of its own,
   * derived from it) or `KEY=TENANT[,TENANT...]` (it acts for those tenant IDs). Default: any
   * non-empty key is accepted.
   */
  apiKeys?: string[];
  /**
   * Keep the state in this file, written whole at every change (with `FILE.lock/`,
   * `FILE.uploads/` and `FILE.registry/` beside it), so that a second emulator started with it
   * finds what the first left. One emulator per file at a time. Default: in memory, gone at `close()`.
   */
  statePath?: string;
  /**
   * `"real"` (default): real time, plus what {@link ClockControls.advance} adds. `"manual"`:
   * starts at 2025-01-01T00:00:00.000Z and moves only when the clock controls move it, so that
   * every time the emulator reports is the same on every run (with `stageMs` above 0, a
   * revision then moves on only when the test moves the clock).
   */
  clock?: "real" | "manual";
  /**
   * The port of the API. Default 0: one the operating system picks (read it from `url`). The
   * image registry and the stand-in agent servers take ports of their own, picked likewise.
   */
  port?: number;
  /** The address to listen on. Default `127.0.0.1`. */
  host?: string;
}

/** A running emulator. Close it when the tests are done ({@link Emulator.close}). */
export interface Emulator {
  /**
   * The control plane API, `http://HOST:PORT`: what cpctl takes as `CPCTL_BASE_URL` (or
   * `--base-url`), and any HTTP client as the base of `/v2/deployments`.
   */
  readonly url: string;
  /**
   * The emulator's image registry, `http://HOST:PORT`, where `internal_container`
   * deployments' images go (`cpctl deploy push --image` pushes there).
   */
  readonly registryUrl: string;
  /** Typed calls that act on this emulator directly: fail the next revision, the clock, health, reset. */
  readonly controls: EmulatorControls;
  /**
   * Stops listening and cuts open connections; with `statePath`, frees the file for the next
   * emulator (every change is in it already). Calling it again does nothing more.
   */
  close(): Promise<void>;
}

/**
 * The emulator's controls ("Emulator controls" in docs/emulator.md), called in-process: no
 * credentials, and they see every tenant. A call the emulator refuses (an unknown deployment,
 * a stage no revision fails at, the clock moved backwards) rejects with an Error that says
 * which argument and why.
 */
export interface EmulatorControls {
  /**
   * The next revision (of `deployment`, or of any deployment) that passes through `stage`
   * fails at the end of it: `CREATE_FAILED` for `CREATING` and `QUEUED`, `BUILD_FAILED` for
   * `AWAITING_BUILD` and `BUILDING` (only built sources pass through those), `DEPLOY_FAILED`
   * for `AWAITING_DEPLOY` and `DEPLOYING`. `message` is the error line that ends its build log
   * (default: a realistic one for the stage). Resolves to the rule, until a revision uses it.
   */
  failNext(rule: FailNextRule): Promise<FailRule>;
  /** The emulator's clock, which every revision's stages follow. */
  readonly clock: ClockControls;
  /**
   * Makes a deployment's stand-in agent server (its `custom_url`) answer `/ok` with 500
   * (`"failing"`) or 200 again (`"ok"`): for `options.revision`, or without it for the next
   * revision to start (with `"ok"`: every revision of the deployment, and the next). What
   * `cpctl deploy status --check` and `--verify` then find.
   */
  health(
    deployment: string,
    state: "failing" | "ok",
    options?: { revision?: string },
  ): Promise<HealthControlAnswer>;
  /**
   * Empties the emulator: every deployment, revision, upload, image, tracing project, fail
   * rule and fault, and the request counts. The clock stays where it is.
   */
  reset(): Promise<void>;
}

/** What {@link EmulatorControls.failNext} takes. */
export interface FailNextRule {
  /** The stage at the end of which the revision fails, e.g. `"BUILDING"`. */
  stage: RevisionStatus;
  /** A deployment ID (`id` in cpctl's JSON output): only its next revision. Default: any deployment's. */
  deployment?: string;
  /** The error line that ends the revision's log (at most 2000 characters). */
  message?: string;
}

/** The emulator's clock: it never runs backwards. */
export interface ClockControls {
  /** What time it is for the emulator. */
  now(): Promise<EmulatorClock>;
  /**
   * Moves the clock forward by `by`: milliseconds, or a duration as cpctl takes them (`"500ms"`,
   * `"90s"`, `"15m"`, `"1h"`, `"7d"`; a bare number of seconds, `"90"`).
   */
  advance(by: number | string): Promise<EmulatorClock>;
  /** Moves the clock forward to `time` (a Date, or milliseconds since the epoch); not back. */
  set(time: Date | number): Promise<EmulatorClock>;
}

/**
 * Starts an emulator: the API on `url`, its image registry and stand-in agent servers beside
 * it. Rejects with an Error whose `code` is `"emulator_start"` when it cannot start (the port
 * is taken, the state file is used by another emulator or unusable).
 */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<Emulator> {
  checkOptions(options);
  const server = await startServer({
    stageMs: options.stageMs ?? 0,
    apiKeys: options.apiKeys,
    statePath: options.statePath,
    clock: options.clock === "manual" ? new ManualClock() : undefined,
    port: options.port ?? 0,
    host: options.host ?? "127.0.0.1",
  });
  let closed: Promise<void> | null = null;
  return {
    url: server.url,
    registryUrl: server.registry.url,
    controls: controlsOf(server),
    close: () => {
      closed ??= server.close();
      return closed;
    },
  };
}

function controlsOf(server: RunningEmulator): EmulatorControls {
  return {
    failNext: (rule) =>
      control(() =>
        server.failNextRevision({ deploymentId: rule.deployment, stage: rule.stage, message: rule.message }),
      ),
    clock: {
      now: () => control(() => server.clock()),
      advance: (by) => control(() => server.advanceClock(typeof by === "string" ? durationMs(by) : by)),
      set: (time) =>
        control(() => {
          const at = time instanceof Date ? time.getTime() : time;
          const now = server.now();
          if (!Number.isFinite(at) || at < now) {
            throw new RangeError(
              `time: must be at or after the emulator's time, ${new Date(now).toISOString()}, not ${Number.isFinite(at) ? new Date(at).toISOString() : String(time)} (its clock never runs backwards)`,
            );
          }
          return server.advanceClock(at - now);
        }),
    },
    health: (deployment, state, options = {}) =>
      control(() => {
        if (state !== "failing" && state !== "ok") {
          throw new TypeError(`state: must be "failing" or "ok", not ${JSON.stringify(state)}`);
        }
        return server.setHealth(deployment, state === "ok", options.revision);
      }),
    reset: () => control(() => server.reset()),
  };
}

/** The names of a control's arguments, by the field of its HTTP body or path they stand for. */
const ARGUMENTS: Record<string, string> = {
  deployment_id: "deployment",
  revision_id: "options.revision",
  advance_ms: "by",
};

/** Runs a control; what it refuses rejects with an Error naming the argument, as users name it. */
async function control<T>(act: () => T): Promise<T> {
  try {
    return act();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const detail =
      typeof error.detail === "string"
        ? error.detail
        : error.detail
            .map(({ loc, msg }) => {
              const field = String(loc[loc.length - 1] ?? "");
              return `${ARGUMENTS[field] ?? (formatPath(loc.slice(1)) || "argument")}: ${msg}`;
            })
            .join("; ");
    throw new Error(detail);
  }
}

function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === null)
    throw new RangeError(
      `by: must be milliseconds or a duration such as "90s" or "15m", not ${JSON.stringify(text)}`,
    );
  return ms;
}

/** JavaScript callers get no type checks: a bad option is an error naming it, before anything listens. */
function checkOptions(options: StartEmulatorOptions): void {
  const { stageMs, port, clock, apiKeys } = options;
  if (stageMs !== undefined && !(Number.isSafeInteger(stageMs) && stageMs >= 0)) {
    throw new RangeError(
      `stageMs: must be a whole number of milliseconds, 0 or more, not ${String(stageMs)}`,
    );
  }
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new RangeError(
      `port: must be a whole number from 0 to 65535 (0 picks a free port), not ${String(port)}`,
    );
  }
  if (clock !== undefined && clock !== "real" && clock !== "manual") {
    throw new TypeError(`clock: must be "real" or "manual", not ${JSON.stringify(clock)}`);
  }
  for (const spec of apiKeys ?? []) {
    const grant =
      typeof spec === "string" && spec !== "" ? parseKeyGrant(spec) : "a key must be a non-empty string";
    if (typeof grant === "string") throw new TypeError(`apiKeys: ${grant}`);
  }
}
