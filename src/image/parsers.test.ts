// The image code's parsers, on every input: WWW-Authenticate challenges, image references,
// registry_url values, image names made from deployment names, tar headers. Properties
// (fast-check, a fixed seed in CI) and the cases registries actually send.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { parseImageReference, REPOSITORY_NAME, TAG } from "../model/image-reference.js";
import { indexTar, TarFormatError } from "./archive/tar-index.js";
import { imageNameFor, registryAddress } from "./registry/address.js";
import { parseChallenges } from "./registry/challenge.js";

const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,10}$/);
const quoted = fc.string({ maxLength: 30 }).filter((text) => !/[\u0000-\u001f\u007f]/.test(text));
const component = fc.stringMatching(/^[a-z0-9]+(?:[._-][a-z0-9]+){0,2}$/);

describe("WWW-Authenticate challenges", () => {
  it("reads what registries send", () => {
    expect(
      parseChallenges(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/alpine:pull"',
      ),
    ).toEqual([
      {
        scheme: "bearer",
        params: {
          realm: "https://auth.docker.io/token",
          service: "registry.docker.io",
          scope: "repository:library/alpine:pull",
        },
      },
    ]);
    expect(parseChallenges('Basic realm="Registry Realm"')).toEqual([
      { scheme: "basic", params: { realm: "Registry Realm" } },
    ]);
    expect(parseChallenges('Basic realm="a", Bearer realm="https://x/token", service=x')).toEqual([
      { scheme: "basic", params: { realm: "a" } },
      { scheme: "bearer", params: { realm: "https://x/token", service: "x" } },
    ]);
    expect(parseChallenges(undefined)).toEqual([]);
    expect(parseChallenges("")).toEqual([]);
  });

  it("property: challenges written out are read back, quoted values escaped", () => {
    const challenge = fc.record({
      scheme: token,
      params: fc.dictionary(
        token.map((key) => key.toLowerCase()),
        quoted,
        { minKeys: 1, maxKeys: 4 },
      ),
    });
    fc.assert(
      fc.property(fc.array(challenge, { minLength: 1, maxLength: 3 }), (challenges) => {
        const header = challenges
          .map(
            (c) =>
              `${c.scheme} ${Object.entries(c.params)
                .map(([key, value]) => `${key}="${value.replace(/["\\]/g, "\\$&")}"`)
                .join(", ")}`,
          )
          .join(", ");
        const parsed = parseChallenges(header);
        expect(parsed).toEqual(challenges.map((c) => ({ scheme: c.scheme.toLowerCase(), params: c.params })));
      }),
    );
  });

  it("property: any text parses without throwing", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => void parseChallenges(text)));
  });
});

describe("image references", () => {
  it("property: HOST/REPOSITORY[:TAG][@DIGEST] written out is read back", () => {
    const host = fc.tuple(
      fc.stringMatching(/^[a-z0-9]+(\.[a-z0-9]+){1,2}$/),
      fc.option(fc.integer({ min: 1, max: 65535 })),
    );
    const tag = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,20}$/);
    const digest = fc.stringMatching(/^[a-f0-9]{64}$/).map((hex) => `sha256:${hex}`);
    fc.assert(
      fc.property(
        host,
        fc.array(component, { minLength: 1, maxLength: 4 }),
        fc.option(tag),
        fc.option(digest),
        (h, parts, t, d) => {
          const hostText = h[1] === null ? h[0] : `${h[0]}:${h[1]}`;
          const text = `${hostText}/${parts.join("/")}${t === null ? "" : `:${t}`}${d === null ? "" : `@${d}`}`;
          expect(parseImageReference(text)).toEqual({
            host: hostText,
            repository: parts.join("/"),
            tag: t,
            digest: d,
          });
        },
      ),
    );
  });

  it("refuses what is not one with an explicit registry", () => {
    for (const text of [
      "alpine",
      "library/alpine:3",
      "HOST.io/Upper",
      "host.io/x@sha256:zz",
      "host.io/x:-bad",
      "host.io/",
    ]) {
      expect(parseImageReference(text), text).toBeNull();
    }
    expect(parseImageReference("localhost/x:1")).toMatchObject({
      host: "localhost",
      repository: "x",
      tag: "1",
    });
    expect(parseImageReference("[::1]:5000/x")).toMatchObject({ host: "[::1]:5000", repository: "x" });
  });
});

describe("registry_url and image names", () => {
  it("a registry_url without a scheme: HTTPS, but plain HTTP on a loopback address; a scheme given is followed", () => {
    expect(registryAddress("us-docker.pkg.dev/acme/deployments/x")).toEqual({
      origin: "https://us-docker.pkg.dev",
      host: "us-docker.pkg.dev",
      prefix: "acme/deployments/x",
      insecure: false,
    });
    expect(registryAddress("127.0.0.1:8125/deployments/x/")).toMatchObject({
      origin: "http://127.0.0.1:8125",
      prefix: "deployments/x",
      insecure: true,
    });
    expect(registryAddress("http://registry.internal:5000/p")).toMatchObject({
      origin: "http://registry.internal:5000",
      host: "registry.internal:5000",
    });
    expect(registryAddress("https://localhost:5000")).toMatchObject({
      origin: "https://localhost:5000",
      prefix: "",
    });
    for (const bad of ["", "/x", "host/UPPER", "a b/c"])
      expect(() => registryAddress(bad), bad).toThrow(UsageError);
  });

  it("property: any deployment name makes a valid image name", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (name) => {
        const image = imageNameFor(name);
        expect(REPOSITORY_NAME.test(image) && !image.includes("/") && image.length <= 128, image).toBe(true);
        expect(TAG.test(image) || image.length > 0).toBe(true);
      }),
    );
    expect(imageNameFor("My Agent (prod)")).toBe("my-agent-prod");
    expect(imageNameFor("!!!")).toBe("image");
  });
});

describe("tar headers", () => {
  it("property: random bytes are refused as a TarFormatError or read, never a hang or another error", () => {
    const dir = mkdtempSync(join(tmpdir(), "cpctl-tar-fuzz-"));
    let n = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        const file = join(dir, `f${n++}`);
        writeFileSync(file, bytes);
        try {
          indexTar(file);
        } catch (error) {
          expect(error).toBeInstanceOf(TarFormatError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
