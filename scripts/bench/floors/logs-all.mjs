// Floor of `deploy logs ID --all --until T`: the whole runtime log up to T of the revision that
// serves, read as the CLI reads it (the documented GET /v2/deployments/{id}/revisions/{rid}/logs):
// the deployment (for its active revision), then pages of 1,000 (the service's largest) one
// after another as the cursor leads, each page printed as it comes.
import { call, fail } from "./http.mjs";

const [id, until] = process.argv.slice(2);
const PAGE = 1000;
let offset = null;
try {
  const deployment = await call("GET", `/v2/deployments/${id}`);
  const revision = deployment.active_revision_id ?? deployment.latest_revision_id;
  const path = `/v2/deployments/${id}/revisions/${revision}/logs`;
  for (;;) {
    const query = new URLSearchParams({ type: "deploy", order: "asc", limit: String(PAGE), end_time: until });
    if (offset) query.set("offset", offset);
    const page = await call("GET", `${path}?${query}`);
    process.stdout.write(page.logs.map((e) => `${e.timestamp} ${e.level.padEnd(8)} ${e.message}\n`).join(""));
    if (page.next_offset === null || page.logs.length < PAGE) break;
    offset = page.next_offset;
  }
} catch (error) {
  fail(error);
}
