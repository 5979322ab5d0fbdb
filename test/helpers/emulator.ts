// The emulator for tests: in-process, on 127.0.0.1 with an OS-chosen port, on a manual
// clock (time moves only when the test says so) and, unless asked otherwise, with stages of
// 0 ms so that every revision is DEPLOYED (or failed) as soon as it exists.
//
//   const em = await startTestEmulator();                 // close with em.close()
//   const getEm = useTestEmulator({ stageMs: 1000 });     // per test, closed after each
//   afterEach(closeTestEmulators);                         // or close all started ones yourself
//
// `em.request()` speaks plain node:http (a fresh connection per call), authenticated as
// `em.apiKey` unless `auth: false` or other headers are given.
import http, { type IncomingHttpHeaders } from "node:http";
import { afterEach, beforeEach } from "vitest";
import { parseKeyGrant } from "../../src/emulator/api/key-grants.js";
import {
  type EmulatorOptions,
  ManualClock,
  type RunningEmulator,
  startEmulator,
} from "../../src/emulator/server.js";
import type { Source } from "../../src/model/enums.js";

export const TEST_API_KEY = "test-key";

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: test convenience, bodies are checked field by field.
  json: any;
}

export interface RequestOptions {
  /** Serialised as JSON (with Content-Type: application/json). */
  body?: unknown;
  /** Sent as is (wins over `body`). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** false: no credentials at all. A string: that API key. Default: the emulator's test key. */
  auth?: boolean | string;
  timeoutMs?: number;
}

export interface TestEmulator {
  url: string;
  emulator: RunningEmulator;
  clock: ManualClock;
  /** Revision stage length this emulator was started with. */
  stageMs: number;
  apiKey: string;
  /** The tenant the test key stands for. */
  tenantId: string;
  close(): Promise<void>;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  get(path: string, options?: RequestOptions): Promise<TestResponse>;
  post(path: string, body?: unknown, options?: RequestOptions): Promise<TestResponse>;
  patch(path: string, body?: unknown, options?: RequestOptions): Promise<TestResponse>;
  delete(path: string, options?: RequestOptions): Promise<TestResponse>;
  /** Moves the manual clock forward. */
  advance(ms: number): void;
  /** Moves the clock far enough for every revision created so far to finish. */
  settle(): void;
  /** A valid create body for `source`, using this tenant's seeded integration and listener. */
  createBody(source: Source, name?: string): Record<string, unknown>;
  /** Creates a deployment (expects 201) and returns it. */
  // biome-ignore lint/suspicious/noExplicitAny: see TestResponse.json.
  createDeployment(source: Source, name?: string, overrides?: Record<string, unknown>): Promise<any>;
}

const started = new Set<TestEmulator>();
let nameCounter = 0;

export async function startTestEmulator(
  options: EmulatorOptions & { apiKey?: string } = {},
): Promise<TestEmulator> {
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock();
  const stageMs = options.stageMs ?? 0;
  const emulator = await startEmulator({ ...options, host: "127.0.0.1", port: 0, clock, stageMs });
  // `--api-key KEY=TENANT` style entries: the key is what is sent.
  const firstKey = options.apiKeys?.[0];
  const granted = firstKey === undefined ? undefined : parseKeyGrant(firstKey);
  const apiKey =
    options.apiKey ?? (typeof granted === "object" ? granted.key : undefined) ?? firstKey ?? TEST_API_KEY;
  const tenantId = emulator.tenantFor(apiKey);

  const request = (method: string, path: string, requestOptions: RequestOptions = {}) => {
    const headers: Record<string, string> = {};
    if (requestOptions.auth !== false) {
      headers["X-Api-Key"] = typeof requestOptions.auth === "string" ? requestOptions.auth : apiKey;
    }
    Object.assign(headers, requestOptions.headers);
    let body: string | Buffer | undefined = requestOptions.rawBody;
    if (body === undefined && requestOptions.body !== undefined) {
      body = JSON.stringify(requestOptions.body);
      headers["Content-Type"] ??= "application/json";
    }
    return httpRequest(`${emulator.url}${path}`, {
      method,
      headers,
      body,
      timeoutMs: requestOptions.timeoutMs,
    });
  };

  const createBody = (source: Source, name = `dep-${++nameCounter}`): Record<string, unknown> => {
    const seed = emulator.seed(tenantId);
    switch (source) {
      case "gitrepo":
        return {
          name,
          source,
          source_config: {
            integration_id: seed.integrations[0]!.id,
            repo_url: "https://github.com/example/agent",
            deployment_type: "dev",
            build_on_push: true,
          },
          source_revision_config: { repo_ref: "main", agent_config_path: "agent.json" },
          secrets: [],
        };
      case "external_container":
        return {
          name,
          source,
          source_config: {
            listener_id: seed.listeners[0]!.id,
            listener_config: { k8s_namespace: seed.listeners[0]!.compute_config.k8s_namespaces[0] },
          },
          source_revision_config: { image_uri: "registry.example.com/agent:1.0.0" },
          secrets: [],
        };
      case "internal_container":
        return {
          name,
          source,
          source_config: {},
          source_revision_config: { image_uri: "registry.example.com/agent:1.0.0" },
          secrets: [],
        };
      case "internal_source":
        return {
          name,
          source,
          source_config: {},
          source_revision_config: { agent_config_path: "agent.json" },
          secrets: [],
        };
    }
  };

  const testEmulator: TestEmulator = {
    url: emulator.url,
    emulator,
    clock,
    stageMs,
    apiKey,
    tenantId,
    close: async () => {
      started.delete(testEmulator);
      await emulator.close();
    },
    request,
    get: (path, o) => request("GET", path, o),
    post: (path, body, o) => request("POST", path, { ...o, body }),
    patch: (path, body, o) => request("PATCH", path, { ...o, body }),
    delete: (path, o) => request("DELETE", path, o),
    advance: (ms) => emulator.advanceClock(ms),
    // Longest plan is six stages; ten stages of time leaves every revision finished.
    settle: () => emulator.advanceClock(Math.max(1, stageMs * 10)),
    createBody,
    createDeployment: async (source, name, overrides = {}) => {
      const response = await request("POST", "/v2/deployments", {
        body: { ...createBody(source, name), ...overrides },
      });
      if (response.status !== 201) {
        throw new Error(`create ${source} failed: ${response.status} ${response.text}`);
      }
      return response.json;
    },
  };
  started.add(testEmulator);
  return testEmulator;
}

/** Closes every test emulator still open; fit for `afterEach(closeTestEmulators)`. */
/** The names of every deployment of the test tenant, every page read, sorted. */
export async function deploymentNames(em: TestEmulator): Promise<string[]> {
  const all: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await em.get(`/v2/deployments?limit=100&offset=${offset}`)).json.resources;
    all.push(...page.map((d: { name: string }) => d.name));
    if (page.length < 100) return all.sort();
  }
}

export async function closeTestEmulators(): Promise<void> {
  await Promise.all([...started].map((em) => em.close()));
}

/** A fresh emulator for each test of the calling `describe` (or file), closed after it. */
export function useTestEmulator(options: EmulatorOptions & { apiKey?: string } = {}): () => TestEmulator {
  let current: TestEmulator | null = null;
  beforeEach(async () => {
    current = await startTestEmulator(options);
  });
  afterEach(async () => {
    await current?.close();
    current = null;
  });
  return () => {
    if (!current) throw new Error("useTestEmulator: the emulator exists only inside a test");
    return current;
  };
}

/** One HTTP exchange on a fresh connection (no pooling: nothing lingers after a test). */
export function httpRequest(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeoutMs?: number;
  } = {},
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      },
    );
    request.on("error", reject);
    if (options.timeoutMs) {
      request.setTimeout(options.timeoutMs, () =>
        request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)),
      );
    }
    request.end(options.body);
  });
}
