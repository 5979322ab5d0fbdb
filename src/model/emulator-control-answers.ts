// The answers of the local control plane's controls (model/emulator-controls.ts), checked by
// the client of `cpctl emulator ...` (api/emulator-controls.ts) before it reads them.
// A control's answer is read only once it has this shape: an address that is not an emulator,
// or an emulator of another version, gets a clean error instead of a crash on a missing list.
// Loose objects: an emulator may add fields.
import * as z from "zod/mini";
import {
  EMULATOR_SERVICE,
  type EmulatorClock,
  type EmulatorFault,
  type EmulatorHealth,
  type EmulatorStats,
  type FailRule,
  type HealthControlAnswer,
} from "./emulator-controls.js";
import { REVISION_STATUSES } from "./enums.js";

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
