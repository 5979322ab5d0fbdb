// Floor of `deploy logs ID --limit 1000 --until T`: one request for the newest 1,000 up to T, printed oldest first.
import { call, fail } from "./http.mjs";

const [id, until] = process.argv.slice(2);
try {
  const page = await call("POST", `/v1/projects/${id}/deploy_logs`, {
    order: "desc",
    limit: 1000,
    end_time: until,
  });
  const lines = page.logs.reverse().map((e) => `${e.timestamp} ${e.level.padEnd(8)} ${e.message}\n`);
  process.stdout.write(lines.join(""));
} catch (error) {
  fail(error);
}
