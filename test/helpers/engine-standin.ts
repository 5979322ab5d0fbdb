// Stand-in `docker` and `podman` executables for tests of `--image`: they record every call
// (arguments, standard input, whether the client config directory they were given exists)
// and act as the real ones would where it matters. `login` checks the token with the registry
// (the Bearer token flow) and writes it in the private config, as docker does; `push` pushes a
// prepared image with those credentials (plain HTTP, monolithic uploads) and prints the digest
// line docker prints, or writes podman's --digestfile. `image inspect` knows every image but
// those named in STANDIN_MISSING. STANDIN_REFUSE_PUSHES=N makes the first N pushes fail as a
// registry's 401 would, STANDIN_FAIL_PUSHES=N as a dropped connection would; STANDIN_HANG_PUSH
// makes a push hang (writing the file `pushing` in the state directory, and with
// STANDIN_NOTIFY_PORT connecting to that port of 127.0.0.1 and writing its PID, a connection
// that closes when the process ends) until it is killed;
// STANDIN_DAEMON_DOWN answers every call as docker does when its daemon is not running;
// STANDIN_ECHO_TOKEN makes a push write the credential it uses in a line of its output.
//
// The executables start with the absolute path of this Node, so PATH can hold the stand-ins'
// directory alone (this machine may have a real docker next to node).
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MEDIA_TYPES } from "../../src/model/image-manifest.js";
import { sha256, type TestImage } from "./images.js";

export interface EngineCall {
  engine: "docker" | "podman";
  args: string[];
  stdin: string;
  /** The directory of --config / --authfile, and whether it existed during the call. */
  configDir: string | null;
  configDirExisted: boolean;
  env: Record<string, string | undefined>;
}

export interface StandIns {
  /** The directory to put on PATH. */
  dir: string;
  /** Environment the stand-ins read (merge it into the CLI's env, with PATH). */
  env: Record<string, string>;
  calls(): EngineCall[];
  /** The manifest digest a push of the prepared image gives. */
  digest: string;
  /** The directory of the stand-ins' own state (the `pushing` marker). */
  state: string;
}

const SCRIPT = String.raw`
const fs = require("fs"), path = require("path"), http = require("http"), crypto = require("crypto");
const engine = path.basename(process.argv[1]);
const args = process.argv.slice(2);
const stdin = (() => { try { return fs.readFileSync(0, "utf8"); } catch { return ""; } })();
const env = process.env;
const flag = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : null; };
const configDir = engine === "docker" ? flag("--config") : (flag("--authfile") ? path.dirname(flag("--authfile")) : null);
const record = { engine, args, stdin, configDir, configDirExisted: configDir ? fs.existsSync(configDir) : false,
  env: { DOCKER_CONFIG: env.DOCKER_CONFIG, REGISTRY_AUTH_FILE: env.REGISTRY_AUTH_FILE, DOCKER_HOST: env.DOCKER_HOST, DOCKER_CONTEXT: env.DOCKER_CONTEXT } };
fs.appendFileSync(env.STANDIN_LOG, JSON.stringify(record) + "\n");
// What follows "--" is positional whatever it looks like, as cobra (both engines' parser) reads it.
const dashes = args.indexOf("--");
const options = dashes < 0 ? args : args.slice(0, dashes);
const words = options.filter((a, i) => !a.startsWith("-") && !(i > 0 && ["--config", "--authfile", "--digestfile", "--format", "--username", "-u"].includes(options[i - 1])))
  .concat(dashes < 0 ? [] : args.slice(dashes + 1));
const command = words[0] === "image" || words[0] === "context" ? words[0] + " " + words[1] : words[0];
const fail = (text) => { process.stderr.write(text + "\n"); process.exit(1); };

function request(method, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, "Content-Length": body ? body.length : 0 } }, (res) => {
      const chunks = []; res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject); req.end(body);
  });
}
const authFile = () => engine === "docker" ? path.join(configDir, "config.json") : flag("--authfile");
function savedAuth(host) {
  try { return JSON.parse(fs.readFileSync(authFile(), "utf8")).auths[host].auth; } catch { return null; }
}
function counter(name) {
  const file = path.join(env.STANDIN_STATE, name);
  const n = fs.existsSync(file) ? Number(fs.readFileSync(file, "utf8")) : 0;
  fs.writeFileSync(file, String(n + 1));
  return n;
}

async function main() {
  if (env.STANDIN_DAEMON_DOWN) fail("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?");
  if (command === "image inspect") {
    const image = words[words.length - 1];
    if ((env.STANDIN_MISSING || "").split(",").includes(image))
      fail(engine === "docker" ? "Error: No such image: " + image : "Error: " + image + ": image not known");
    process.stdout.write("sha256:" + crypto.createHash("sha256").update(image).digest("hex") + "\n");
    return;
  }
  if (command === "login") {
    const host = words[words.length - 1];
    const user = flag("--username");
    const token = stdin.trim();
    const ping = await request("GET", "http://" + host + "/v2/", {});
    const realm = /realm="([^"]+)"/.exec(ping.headers["www-authenticate"] || "");
    const basic = "Basic " + Buffer.from(user + ":" + token).toString("base64");
    const issued = await request("GET", realm[1], { Authorization: basic });
    if (issued.status !== 200) fail("Error response from daemon: login attempt to http://" + host + "/v2/ failed with status: 401 Unauthorized");
    const file = authFile();
    const saved = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
    saved.auths = { ...(saved.auths || {}), [host]: { auth: Buffer.from(user + ":" + token).toString("base64") } };
    fs.writeFileSync(file, JSON.stringify(saved));
    process.stdout.write("Login Succeeded\n");
    return;
  }
  if (command === "tag") return;
  if (command === "context inspect") {
    process.stdout.write("unix:///run/standin/" + (env.DOCKER_CONTEXT || "default") + ".sock\n");
    return;
  }
  if (command === "push") {
    const target = words[words.length - 1];
    const host = target.slice(0, target.indexOf("/"));
    const repo = target.slice(host.length + 1, target.lastIndexOf(":"));
    const tag = target.slice(target.lastIndexOf(":") + 1);
    if (env.STANDIN_HANG_PUSH) {
      fs.writeFileSync(path.join(env.STANDIN_STATE, "pushing"), "1");
      // The test learns the push started, and when this process is gone: its connection closes.
      if (env.STANDIN_NOTIFY_PORT) {
        const socket = require("net").connect(Number(env.STANDIN_NOTIFY_PORT), "127.0.0.1", () => socket.write(process.pid + "\n"));
        socket.on("error", () => {});
      }
      return new Promise(() => setInterval(() => {}, 1000));
    }
    if (counter("pushes") < Number(env.STANDIN_REFUSE_PUSHES || 0)) fail("unauthorized: authentication required");
    if (env.STANDIN_FAIL_PUSHES && counter("failures") < Number(env.STANDIN_FAIL_PUSHES)) fail("error: connection reset by peer");
    const auth = savedAuth(host);
    if (!auth) fail("no basic auth credentials");
    // A debug line of the kind an engine may write: the credential in clear.
    if (env.STANDIN_ECHO_TOKEN) process.stderr.write("debug: pushing as " + Buffer.from(auth, "base64").toString() + " (Authorization: Basic " + auth + ")\n");
    const headers = { Authorization: "Basic " + auth };
    const image = JSON.parse(fs.readFileSync(env.STANDIN_IMAGE, "utf8"));
    for (const blob of image.blobs) {
      const start = await request("POST", "http://" + host + "/v2/" + repo + "/blobs/uploads/", headers);
      if (start.status === 401) fail("unauthorized: authentication required");
      const url = new URL(start.headers.location, "http://" + host);
      url.searchParams.set("digest", blob.digest);
      const put = await request("PUT", url.toString(), headers, Buffer.from(blob.data, "base64"));
      if (put.status !== 201) fail("error pushing blob: " + put.status + " " + put.body);
      process.stdout.write(blob.digest.slice(7, 19) + ": Pushed\n");
    }
    const manifest = Buffer.from(image.manifest, "base64");
    const put = await request("PUT", "http://" + host + "/v2/" + repo + "/manifests/" + tag, { ...headers, "Content-Type": image.mediaType }, manifest);
    if (put.status !== 201) fail("error pushing manifest: " + put.status + " " + put.body);
    const digest = put.headers["docker-content-digest"];
    if (engine === "docker") process.stdout.write(tag + ": digest: " + digest + " size: " + manifest.length + "\n");
    else { fs.writeFileSync(flag("--digestfile"), digest); process.stdout.write("Writing manifest to image destination\n"); }
    return;
  }
  fail("stand-in " + engine + ": unknown command " + args.join(" "));
}
main().catch((e) => fail(String(e && e.stack || e)));
`;

export function makeStandIns(
  image: TestImage,
  engines: ("docker" | "podman")[] = ["docker", "podman"],
): StandIns {
  const dir = mkdtempSync(join(tmpdir(), "cpctl-standins-"));
  const state = mkdtempSync(join(tmpdir(), "cpctl-standin-state-"));
  const log = join(state, "calls.jsonl");
  writeFileSync(log, "");
  for (const engine of engines) {
    const file = join(dir, engine);
    writeFileSync(file, `#!${process.execPath}\n${SCRIPT}`);
    chmodSync(file, 0o755);
  }
  const blobs = [image.config, ...image.layers].map((data) => ({
    digest: sha256(data),
    data: data.toString("base64"),
  }));
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.dockerManifest,
      config: {
        mediaType: MEDIA_TYPES.dockerConfig,
        digest: sha256(image.config),
        size: image.config.length,
      },
      layers: image.layers.map((layer) => ({
        mediaType: MEDIA_TYPES.dockerLayer,
        digest: sha256(layer),
        size: layer.length,
      })),
    }),
  );
  const recipe = join(state, "image.json");
  writeFileSync(
    recipe,
    JSON.stringify({ blobs, manifest: manifest.toString("base64"), mediaType: MEDIA_TYPES.dockerManifest }),
  );
  return {
    dir,
    env: { PATH: dir, STANDIN_LOG: log, STANDIN_STATE: state, STANDIN_IMAGE: recipe },
    calls: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as EngineCall),
    digest: sha256(manifest),
    state,
  };
}
