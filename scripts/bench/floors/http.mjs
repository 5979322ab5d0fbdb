// The floors' one HTTP helper: a request on a keep-alive agent, its JSON answer.
import http from "node:http";

export const agent = new http.Agent({ keepAlive: true });
export const headers = { Accept: "application/json", "X-Api-Key": process.env.CPCTL_API_KEY };

export function call(method, path, body) {
  const url = new URL(path, process.env.CPCTL_BASE_URL);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method, agent, headers: body ? { ...headers, "Content-Type": "application/json" } : headers },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (response.statusCode !== 200)
            reject(new Error(`${method} ${path}: ${response.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    request.on("error", reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export function fail(error) {
  console.error(error.message);
  process.exit(1);
}
