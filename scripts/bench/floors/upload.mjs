// The HTTP half of the floor of `deploy upload ID DIR`: ask for an upload URL, then PUT the
// tarball made by `tar -czf` (or pigz) to it, streamed, with its length.
import { createReadStream, statSync } from "node:fs";
import http from "node:http";
import { call, fail } from "./http.mjs";

const [id, archive] = process.argv.slice(2);
try {
  const { upload_url: url } = await call("POST", `/v2/deployments/${id}/upload-url`);
  await new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "PUT",
        headers: { "Content-Type": "application/gzip", "Content-Length": String(statSync(archive).size) },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`PUT: ${response.statusCode}`)),
        );
      },
    );
    request.on("error", reject);
    createReadStream(archive).pipe(request);
  });
} catch (error) {
  fail(error);
}
