// A test certificate authority and a certificate it signed for 127.0.0.1, made with openssl:
// for an https:// control plane or proxy that only a profile's caFile makes trusted.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freshDir } from "./run-cli.js";

export interface TestPki {
  dir: string;
  /** The authority's certificate, PEM (what a caFile names). */
  caFile: string;
  /** The key and certificate of 127.0.0.1, for a TLS server. */
  tls: { key: Buffer; cert: Buffer };
}

export function makeTestPki(): TestPki {
  const dir = freshDir("pki");
  const run = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  const days = ["-days", "2"];
  run([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    ...days,
    "-subj",
    "/CN=cpctl test CA",
  ]);
  run([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
    "-subj",
    "/CN=127.0.0.1",
  ]);
  writeFileSync(join(dir, "san.cnf"), "subjectAltName=IP:127.0.0.1\n");
  run([
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    ...days,
    "-extfile",
    "san.cnf",
  ]);
  return {
    dir,
    caFile: join(dir, "ca.pem"),
    tls: { key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.pem")) },
  };
}
