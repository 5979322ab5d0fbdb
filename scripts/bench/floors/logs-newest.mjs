// Floor of `deploy logs ID --limit 1000 --until T`: the deployment (for the revision that
// serves), then one request of the documented GET /v2/deployments/{id}/revisions/{rid}/logs
// for the newest 1,000 up to T, printed oldest first.
import { call, fail } from "./http.mjs";

const [id, until] = process.argv.slice(2);
try {
  const deployment = await call("GET", `/v2/deployments/${id}`);
  const revision = deployment.active_revision_id ?? deployment.latest_revision_id;
  const query = new URLSearchParams({ type: "deploy", order: "desc", limit: "1000", end_time: until });
  const page = await call("GET", `/v2/deployments/${id}/revisions/${revision}/logs?${query}`);
  const lines = page.logs.reverse().map((e) => `${e.timestamp} ${e.level.padEnd(8)} ${e.message}\n`);
  process.stdout.write(lines.join(""));
} catch (error) {
  fail(error);
}
