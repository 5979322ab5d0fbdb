// Which endpoint a run reads logs from. CLI.md: `GET /v2/deployments/{id}/revisions/{rid}/logs`,
// and the `/v1/projects/...` calls only when the service answers that one with 404. A 404 says
// either "no such endpoint" (a service older than the documented one) or "no such deployment
// or revision"; the same read asked of v1 tells them apart:
//
// - every read goes to v2 until the run has fallen back;
// - v2 answers 404: that same read (the same query, cursor included) is sent once to v1;
//   - v1 answers it (2xx): v2 is missing on this service. The page is v1's, and every later
//     read of the run goes to v1 alone (one v2 404 in a run, never one a read);
//   - v1 answers 404 too: the deployment or revision is not there. v2's error is thrown (the
//     documented endpoint's words: exit 4), and nothing is remembered;
//   - v1 fails otherwise: that error is thrown, and nothing is remembered.
// `--debug` says which endpoint is read, and why it fell back.
import { ApiError } from "../errors.js";
import type { ApiClient } from "./client.js";
import {
  type LogPage,
  type LogQuery,
  type LogSource,
  projectLogsPath,
  readProjectLogPage,
  readRevisionLogPage,
  revisionLogsPath,
} from "./endpoints.js";

export type LogApiVersion = "v2" | "v1";

export class LogEndpoints {
  private fellBack = false;
  private said = false;

  constructor(
    private readonly api: ApiClient,
    /** Where the `--debug` lines go; nothing without it. */
    private readonly debug: (line: string) => void = () => {},
  ) {}

  /** The endpoint the next read goes to. */
  get version(): LogApiVersion {
    return this.fellBack ? "v1" : "v2";
  }

  async read(source: LogSource, query: LogQuery): Promise<LogPage> {
    if (this.fellBack) return readProjectLogPage(this.api, source, query);
    if (!this.said) {
      this.said = true;
      this.debug(
        `logs: reading GET ${revisionLogsPath(source)} (the documented endpoint; /v1/projects only if it answers 404)`,
      );
    }
    try {
      return await readRevisionLogPage(this.api, source, query);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      return this.readV1After(error, source, query);
    }
  }

  private async readV1After(notFound: ApiError, source: LogSource, query: LogQuery): Promise<LogPage> {
    const v1 = `POST ${projectLogsPath(source)}`;
    let page: LogPage;
    try {
      page = await readProjectLogPage(this.api, source, query);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        this.debug(`logs: ${v1} answered 404 too: the deployment or revision is not there`);
        throw notFound;
      }
      throw error;
    }
    this.fellBack = true;
    this.debug(
      `logs: GET ${revisionLogsPath(source)} answered 404${detailOf(notFound)} and ${v1} answered: ` +
        "this service has no v2 log endpoint; the rest of this command reads /v1/projects",
    );
    return page;
  }
}

function detailOf(error: ApiError): string {
  const body = error.body as { detail?: unknown } | null;
  const detail = body && typeof body === "object" ? body.detail : undefined;
  return typeof detail === "string" ? ` (${JSON.stringify(detail.slice(0, 120))})` : "";
}
