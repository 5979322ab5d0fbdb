// What the local control plane's controls (/_emulator/, docs/emulator.md) take and answer:
// one definition for the emulator that serves them, the client of `cpctl emulator ...` and
// the users of `cpctl/emulator` (whose type declarations include this file: plain types, no
// zod; the client's checks of the answers are emulator-control-answers.ts's).
import type { RevisionStatus } from "./enums.js";

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
