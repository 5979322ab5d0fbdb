// Floor of `deploy logs ID --all --until T`: the whole runtime log up to T, oldest first, in pages of 1,000
// (the service's largest) one after another as the cursor leads, each page printed as it comes.
import { call, fail } from "./http.mjs";

const [id, until] = process.argv.slice(2);
const PAGE = 1000;
let offset = null;
try {
  for (;;) {
    const body = { order: "asc", limit: PAGE, end_time: until, ...(offset ? { offset } : {}) };
    const page = await call("POST", `/v1/projects/${id}/deploy_logs`, body);
    process.stdout.write(page.logs.map((e) => `${e.timestamp} ${e.level.padEnd(8)} ${e.message}\n`).join(""));
    if (page.next_offset === null || page.logs.length < PAGE) break;
    offset = page.next_offset;
  }
} catch (error) {
  fail(error);
}
