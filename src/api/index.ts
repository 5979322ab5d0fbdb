// The thin HTTP module: the public pieces the rest of the CLI uses.
export {
  ApiClient,
  type ApiClientOptions,
  type ApiResponse,
  type Credentials,
  DEFAULT_TENANT_HEADER,
  formatLoc,
  type Query,
  type QueryValue,
  type RequestOptions,
  summariseIssues,
} from "./client.js";
export {
  createTracer,
  MASK,
  maskSecretValues,
  REDACTED,
  redactHeaders,
  redactText,
  redactUrl,
  type Tracer,
  type TracerOptions,
} from "./redact.js";
export {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  defaultSleep,
  isRetryable,
  isRetrySafeMethod,
  parseRetryAfter,
  type RetryPolicy,
  type Sleep,
  UnreadableBodyError,
  withRetry,
} from "./retry.js";
export {
  closeIdleConnections,
  nodeTransport,
  RequestInterruptedError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "./transport.js";
