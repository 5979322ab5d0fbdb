// `startEmulator`: the local control plane on node:http. This file sets the parts up (the
// state file, the store, the routes, the auth settings) and serves them; one request's way
// from arrival to answer is api/request-pipeline.ts's.
//
// Lean on purpose: a list request is a route match, a cached tenant lookup, a filter over
// the tenant's deployments and cached serialised views (api/views.ts) joined into one body.
//
// The rooms, one concern each; imports go down the list (never up), and all of them may use
// src/model:
//   public                what users import (`cpctl/emulator`): startEmulator for tests, typed controls
//   server                startEmulator (`cpctl emulator` flags -> its options: commands/emulator/run-args.ts)
//   registry/             the image registry on a second port, and push tokens (registry/server.ts)
//   agents/               the stand-in agent servers on a third port: every deployment's address
//   controls/             the /_emulator/ controls and their routes (docs/emulator.md, "Emulator controls")
//   api/                  the routes of the spec and service-facts (deployments, uploads, logs,
//                         listings; the rules that need state; response shapes) and one request's
//                         way: routing, cross-site checks, auth, injected faults, bodies, queries
//   logs/                 build and runtime logs laid out from a revision's history and the
//                         clock: their words, their streams, their query and paging, and the
//                         files of an uploaded tarball
//   store/                the world: its state, records and indexes, changes, revision status
//                         from the clock, seeded listeners and integrations, identifiers; the
//                         state file (written whole at every change, one emulator per file)
//   responses, defaults,  what every room shares: answers and HTTP errors; defaults; why a start
//   start-error           failed (and listening, where a port in use is one such reason)
import http from "node:http";
import type {
  EmulatorClock,
  EmulatorFault,
  EmulatorStats,
  FailRule,
  FaultRequest,
  HealthControlAnswer,
  TracingProjectView,
} from "../model/emulator-controls.js";
import { DEFAULT_MAX_UPLOAD_BYTES, type RevisionStatus } from "../model/enums.js";
import type { GitIntegrationT, ListenerT, RevisionT } from "../model/responses.js";
import { type RunningAgents, startAgents } from "./agents/server.js";
import { type AuthConfig, DEFAULT_TENANT_HEADER } from "./api/auth.js";
import type { ControlAuthConfig } from "./api/control-auth.js";
import { addDeploymentRoutes } from "./api/deployments.js";
import { Faults } from "./api/faults.js";
import { type Core, RequestStats } from "./api/handler-parts.js";
import { describeKeyGrants, KeyGrants, tenantIdForCredential } from "./api/key-grants.js";
import { addListenerRoutes } from "./api/listeners.js";
import { addLogRoutes } from "./api/log-routes.js";
import { answerUnparsable, HeldAnswers, type RequestEvent, requestListener } from "./api/request-pipeline.js";
import { Router } from "./api/router.js";
import { addListingRoutes } from "./api/seeded-listings.js";
import { addUploadRoutes } from "./api/uploads.js";
import { addControlRoutes } from "./controls/control-routes.js";
import { Controls } from "./controls/controls.js";
import {
  DEFAULT_HOST,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MEMORY_UPLOAD_QUOTA_BYTES,
  DEFAULT_PORT,
  DEFAULT_STAGE_MS,
} from "./defaults.js";
import { repositoryPrefix } from "./registry/access.js";
import { MemoryBackend } from "./registry/backend.js";
import { DirectoryBackend } from "./registry/directory-backend.js";
import { pullProblem } from "./registry/pull-check.js";
import { addPushTokenRoute } from "./registry/push-token.js";
import { type RunningRegistry, startRegistry } from "./registry/server.js";
import { DEFAULT_MEMORY_REGISTRY_QUOTA_BYTES, RegistryStorage } from "./registry/storage.js";
import { listenOn } from "./start-error.js";
import { type Clock, OffsetClock } from "./store/clock.js";
import { StateFile } from "./store/persistence.js";
import { altGitIntegrationsFor, gitIntegrationsFor, listenersFor } from "./store/seed.js";
import type { EmulatorState } from "./store/state.js";
import { MemoryTarballs, Store } from "./store/store.js";

export type { RequestEvent } from "./api/request-pipeline.js";
// Every default, for those who start an emulator (the same names it is started with).
export * from "./defaults.js";
export { HttpError } from "./responses.js";
export { EmulatorStartError } from "./start-error.js";
export type { Clock } from "./store/clock.js";
export { ManualClock, OffsetClock } from "./store/clock.js";

export interface EmulatorOptions {
  /** 0: the OS picks a free port (read it from `url`). Default 8124, as `cpctl emulator`. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** How long each revision stage lasts. Default 1500. */
  stageMs?: number;
  /**
   * The only API keys / bearer tokens accepted, each `KEY` (acts for its own derived tenant)
   * or `KEY=TENANT[,TENANT...]` (acts for those). Absent or empty: any non-empty one.
   */
  apiKeys?: string[];
  /** The token the emulator-wide controls require (X-Control-Token). See api/control-auth.ts. */
  controlToken?: string;
  /**
   * Saves the state in this file, written whole at every change, and uploads in
   * `<file>.uploads/` (store/persistence.ts). Absent: memory only.
   */
  statePath?: string;
  /** Name of the tenant ID header. Default X-Tenant-Id. */
  tenantHeader?: string;
  /** Default: real time plus an offset that the clock control grows (saved with the state). */
  clock?: Clock;
  /** Cap on JSON request bodies. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Cap on uploaded tarballs. Default 100 MiB. */
  maxUploadBytes?: number;
  /**
   * Cap on all uploaded tarballs together. Default: 256 MiB in memory, none with a state file
   * (the tarballs are files there). null: none.
   */
  uploadQuotaBytes?: number | null;
  /**
   * Port of the image registry (registry/server.ts). Default: the next one after `port`, or
   * one the OS picks when `port` is 0.
   */
  registryPort?: number;
  /** Cap on the registry's blobs in memory. Default 512 MiB; none with a state file. null: none. */
  registryQuotaBytes?: number | null;
  /**
   * Port of the stand-in agent servers (agents/server.ts), where every deployment's custom_url
   * answers. Default: two after `port`, or one the OS picks when `port` is 0.
   */
  agentsPort?: number;
}

export interface RunningEmulator {
  /** http://HOST:PORT */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The image registry: `host` is HOST:PORT as image references name it, `url` http://HOST:PORT. */
  readonly registry: { readonly host: string; readonly url: string };
  /** The stand-in agent servers: a deployment's answers at `url`/<its ID> (its custom_url). */
  readonly agents: { readonly url: string };
  /** Stops listening and cuts open connections (held-back answers included). */
  close(): Promise<void>;

  /** The emulator's time, in ms since the epoch. */
  now(): number;
  /** The emulator's time, as `GET /_emulator/clock` answers it. */
  clock(): EmulatorClock;
  advanceClock(ms: number): EmulatorClock;
  addFault(fault: FaultRequest): EmulatorFault;
  /** Faults with uses left. */
  faults(): EmulatorFault[];
  clearFaults(): void;
  /**
   * The next revision (of `deploymentId`, or of any) fails at the end of `stage`; `message`
   * (default: a realistic error for the stage) is the ERROR line that ends its log.
   */
  failNextRevision(rule: { deploymentId?: string; stage: RevisionStatus; message?: string }): FailRule;
  failRevision(deploymentId: string, revisionId: string, stage: RevisionStatus, message?: string): RevisionT;
  /**
   * Makes a deployment's agent server answer `/ok` with 500 (`healthy` false) or 200 again:
   * for `revisionId`, or without one for the next revision to start (`healthy` true without
   * one: every revision of the deployment, and the next).
   */
  setHealth(deploymentId: string, healthy: boolean, revisionId?: string): HealthControlAnswer;
  /** Simulates a push (throws HttpError 409 with the reason when it builds nothing). */
  push(deploymentId: string, options?: { branch?: string; sha?: string }): RevisionT;
  tracingProjects(tenantId?: string): TracingProjectView[];
  stats(): EmulatorStats;
  reset(): void;
  /**
   * Calls `listener` for every API and registry request (not the controls): for tests that act at a
   * precise moment (e.g. once a create is done but its answer held back). Returns a function
   * that removes the listener.
   */
  observe(listener: (event: RequestEvent) => void): () => void;

  /**
   * The tenant a key or token stands for when no tenant header is sent (a configured key
   * granted several tenants: the first of them, although requests must then name one).
   */
  tenantFor(credential: string): string;
  /**
   * One line per configured key: the tenants it acts for (for the start-up message). A key is
   * named by its place in the list, never by any part of it; `source` names the list
   * ("--api-key", "CPCTL_EMULATOR_API_KEYS").
   */
  describeKeys(source?: string): string[];
  /** What the tenant finds seeded: listeners and integrations (both listings). */
  seed(tenantId: string): {
    listeners: ListenerT[];
    integrations: GitIntegrationT[];
    altIntegrations: GitIntegrationT[];
  };
  /** An uploaded tarball by object path, if it was uploaded. */
  tarball(objectPath: string): Buffer | undefined;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? DEFAULT_HOST;

  // Load first: a corrupt state file refuses the start before a port is taken.
  const stateFile = options.statePath ? new StateFile(options.statePath) : null;
  stateFile?.lock();
  let saved: EmulatorState | null;
  let images: RegistryStorage;
  try {
    saved = stateFile?.load() ?? null;
    images = new RegistryStorage(
      options.statePath
        ? new DirectoryBackend(`${options.statePath}.registry`)
        : new MemoryBackend(
            options.registryQuotaBytes !== undefined
              ? options.registryQuotaBytes
              : DEFAULT_MEMORY_REGISTRY_QUOTA_BYTES,
          ),
    );
  } catch (error) {
    stateFile?.unlock();
    throw error;
  }
  let registry: RunningRegistry | null = null;
  const clock = options.clock ?? new OffsetClock(saved?.clock_offset_ms ?? 0);
  const store: Store = new Store(saved, {
    stageMs: options.stageMs ?? DEFAULT_STAGE_MS,
    commit: stateFile ? (state) => stateFile.save(state) : undefined,
    tarballs: stateFile
      ? {
          write: (id, data) => stateFile.writeUpload(id, data),
          read: (id) => stateFile.readUpload(id),
          remove: (id) => stateFile.removeUpload(id),
        }
      : new MemoryTarballs(),
    images: {
      pullProblem: (tenantId, imageUri) =>
        pullProblem(
          { storage: images, store, port: () => registry?.port ?? null, listenHost: host },
          tenantId,
          imageUri,
        ),
      deploymentDeleted: (id) => images.removeRepositories(repositoryPrefix(id)),
      reset: () => images.reset(),
    },
  });
  let agents: RunningAgents | null = null;
  const core: Core = {
    agentUrl: (deploymentId) => agents?.addressOf(deploymentId) ?? "",
    store,
    clock,
    faults: new Faults(),
    stats: new RequestStats(),
    maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    uploadQuotaBytes:
      options.uploadQuotaBytes !== undefined
        ? options.uploadQuotaBytes
        : stateFile
          ? null
          : DEFAULT_MEMORY_UPLOAD_QUOTA_BYTES,
  };
  const grants = options.apiKeys?.length ? new KeyGrants(options.apiKeys) : null;
  const auth: AuthConfig = {
    grants,
    tenantHeader: options.tenantHeader ?? DEFAULT_TENANT_HEADER,
  };
  const controlAuth: ControlAuthConfig = { token: options.controlToken ?? null, keyed: grants !== null };
  const controls = new Controls(core);
  const router = new Router();
  addDeploymentRoutes(router, core);
  addUploadRoutes(router, core);
  addListingRoutes(router, core);
  addListenerRoutes(router, core);
  addLogRoutes(router, core);
  addPushTokenRoute(router, core, (origin) => `${new URL(origin).hostname}:${registry?.port ?? 0}`);
  addControlRoutes(
    router,
    controls,
    () => registry?.host ?? null,
    () => agents?.url ?? null,
  );

  const observers = new Set<(event: RequestEvent) => void>();
  const held = new HeldAnswers();
  let url = "";
  const server = http.createServer(
    requestListener({
      router,
      core,
      auth,
      controlAuth,
      host,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      address: () => url,
      observers,
      held,
    }),
  );
  server.on("clientError", answerUnparsable);

  const requested = options.port ?? DEFAULT_PORT;
  const followsRequested = requested !== 0 && requested <= 65533;
  // The agent servers first: every deployment the API shows names its address.
  agents = await startAgents(
    core,
    auth,
    { host, port: options.agentsPort ?? (followsRequested ? requested + 2 : 0) },
    observers,
  ).catch((error: unknown) => {
    stateFile?.unlock();
    throw error;
  });
  const runningAgents = agents;
  const { port, hostPort } = await listenOn(server, host, requested, "the emulator", "--port").catch(
    async (error: unknown) => {
      await runningAgents.close();
      stateFile?.unlock();
      throw error;
    },
  );
  url = `http://${hostPort}`;
  const registryPort = options.registryPort ?? (requested === 0 || requested === 65535 ? 0 : requested + 1);
  try {
    registry = await startRegistry(core, images, { host, port: registryPort }, observers);
  } catch (error) {
    await new Promise((resolve) => server.close(resolve));
    await runningAgents.close();
    stateFile?.unlock();
    throw error;
  }
  const runningRegistry = registry;

  return {
    url,
    host,
    port,
    registry: { host: runningRegistry.host, url: runningRegistry.url },
    agents: { url: runningAgents.url },
    close: () =>
      new Promise<void>((resolve) => {
        held.drop();
        void runningRegistry.close();
        void runningAgents.close();
        // Then the state file's lock is released (every change is in the file already).
        server.close(() => {
          stateFile?.close();
          resolve();
        });
        server.closeAllConnections();
      }),
    now: () => clock.now(),
    clock: () => controls.clock(),
    advanceClock: (ms) => controls.advanceClock(ms),
    addFault: (fault) => controls.addFault(fault),
    faults: () => controls.faults(),
    clearFaults: () => controls.clearFaults(),
    failNextRevision: ({ deploymentId, stage, message }) =>
      controls.failNextRevision({ deployment_id: deploymentId, stage, message }),
    failRevision: (deploymentId, revisionId, stage, message) =>
      controls.failRevision(deploymentId, revisionId, { stage, message }),
    setHealth: (deploymentId, healthy, revisionId) =>
      controls.setHealth(deploymentId, { state: healthy ? "ok" : "failing", revision_id: revisionId }),
    push: (deploymentId, pushOptions) => controls.push(deploymentId, pushOptions ?? {}),
    tracingProjects: (tenantId) => controls.tracingProjects(tenantId),
    stats: () => controls.stats(),
    reset: () => controls.reset(),
    observe: (listener) => {
      observers.add(listener);
      return () => observers.delete(listener);
    },
    tenantFor: (credential) => grants?.tenantsOf(credential)?.[0] ?? tenantIdForCredential(credential),
    describeKeys: (source) => (grants ? describeKeyGrants(grants, source) : []),
    seed: (tenantId) => ({
      listeners: listenersFor(tenantId.toLowerCase()),
      integrations: gitIntegrationsFor(tenantId.toLowerCase()),
      altIntegrations: altGitIntegrationsFor(tenantId.toLowerCase()),
    }),
    tarball: (objectPath) => store.tarball(objectPath),
  };
}
