// Floor of `deploy list --all -o ndjson` over COUNT deployments: every page asked at once (it
// knows how many there are, which a client cannot), the last one empty as the end of the list,
// printed in order.
import { call, fail } from "./http.mjs";

const count = Number(process.argv[2]);
const PAGE = 100;
try {
  const pages = await Promise.all(
    Array.from({ length: Math.floor(count / PAGE) + 1 }, (_, i) =>
      call("GET", `/v2/deployments?limit=${PAGE}&offset=${i * PAGE}`),
    ),
  );
  process.stdout.write(pages.flatMap((page) => page.resources.map((d) => `${JSON.stringify(d)}\n`)).join(""));
} catch (error) {
  fail(error);
}
