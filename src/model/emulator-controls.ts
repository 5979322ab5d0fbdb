// What the local control plane's controls (/_emulator/, docs/emulator.md) take and answer:
// one definition for the emulator that serves them and the client of `cpctl emulator ...`.
import * as z from "zod/mini";
import { REVISION_STATUSES, type RevisionStatus } from "./enums.js";

/** An injected fault with uses left (emulator/api/faults.ts says what each effect does). */
export interface EmulatorFault {
  id: number;
  /** null: any method. */
  method: string | null;
  path: string;
  remaining: number;
  status: number | null;
  retry_after: number | null;
  latency_ms: number;
  drop: "before" | "after" | null;
  body: "html" | "truncated" | null;
}

/** What `POST /_emulator/faults` takes. */
export interface FaultRequest {
  path: string;
  method?: string;
  count?: number;
  status?: number;
  retry_after?: number;
  latency_ms?: number;
  drop?: "before" | "after";
  body?: "html" | "truncated";
}

/**
 * "The next revision (of this deployment, or of any of this tenant's, or of any at all) fails
 * at the end of `stage`", with `message` (null: the stage's default).
 */
export interface FailRule {
  deployment_id: string | null;
  tenant_id: string | null;
  stage: RevisionStatus;
  message: string | null;
}

export interface EmulatorClock {
  now: string;
  now_ms: number;
  /** Only for the default clock (real time + offset). */
  offset_ms: number | null;
}

export interface EmulatorStats {
  requests: Record<string, number>;
  total: number;
}

export interface TracingProjectView {
  id: string;
  name: string;
  tenant_id: string;
  deployment_id: string;
  created_at: string;
}

/** What `POST /_emulator/deployments/{id}/health` answers: the mark set, and where it shows. */
export interface HealthControlAnswer {
  deployment_id: string;
  /** null: the next revision to start (or, with "ok", every revision of the deployment). */
  revision_id: string | null;
  state: "failing" | "ok";
  /** The deployment's address, whose `/ok` answers accordingly. */
  url: string;
}

// --- The answers' shapes, checked by the client of the controls ---------------------------
// A control's answer is read only once it has this shape: an address that is not an emulator,
// or an emulator of another version, gets a clean error instead of a crash on a missing list.
// Loose objects: an emulator may add fields.

/** What `GET /_emulator/health` says an emulator is: its answer's `service`. */
export const EMULATOR_SERVICE = "cpctl-emulator";

/** `GET /_emulator/health`, which needs no credential: the question asked before any control. */
export interface EmulatorHealth {
  status: "ok";
  service: typeof EMULATOR_SERVICE;
  /** The emulator's clock, ISO 8601. */
  now: string;
  /** HOST:PORT of the image registry, null before it listens. */
  registry: string | null;
  /** http://HOST:PORT of the stand-in agent servers (every deployment's address), null before they listen. */
  agents?: string | null;
}

const text = z.string();
const nullableText = z.nullable(text);
const count = z.int().check(z.gte(0));

export const EmulatorHealthAnswer: z.ZodMiniType<EmulatorHealth> = z.looseObject({
  status: z.literal("ok"),
  service: z.literal(EMULATOR_SERVICE),
  now: z.iso.datetime(),
  registry: nullableText,
  agents: z.optional(nullableText),
});

export const EmulatorClockAnswer: z.ZodMiniType<EmulatorClock> = z.looseObject({
  now: text,
  now_ms: z.number(),
  offset_ms: z.nullable(z.number()),
});

export const EmulatorFaultAnswer: z.ZodMiniType<EmulatorFault> = z.looseObject({
  id: z.int(),
  method: nullableText,
  path: text,
  remaining: count,
  status: z.nullable(z.int()),
  retry_after: z.nullable(z.number()),
  latency_ms: z.number(),
  drop: z.nullable(z.enum(["before", "after"])),
  body: z.nullable(z.enum(["html", "truncated"])),
});

export const EmulatorFaultList = z.looseObject({ faults: z.array(EmulatorFaultAnswer) });

export const FailRuleAnswer: z.ZodMiniType<FailRule> = z.looseObject({
  deployment_id: nullableText,
  tenant_id: nullableText,
  stage: z.enum(REVISION_STATUSES),
  message: nullableText,
});

export const FailRuleList = z.looseObject({ rules: z.array(FailRuleAnswer) });

export const EmulatorStatsAnswer: z.ZodMiniType<EmulatorStats> = z.looseObject({
  requests: z.record(text, count),
  total: count,
});

export const TracingProjectList = z.looseObject({
  resources: z.array(
    z.looseObject({ id: text, name: text, tenant_id: text, deployment_id: text, created_at: text }),
  ),
});

export const HealthControlAnswerShape: z.ZodMiniType<HealthControlAnswer> = z.looseObject({
  deployment_id: text,
  revision_id: nullableText,
  state: z.enum(["failing", "ok"]),
  url: text,
});
