// A packed tarball's bytes, read from its temporary file (src/upload/spool.ts), for tests that
// look inside it.
import type { Tarball } from "../../src/upload/spool.js";

export async function tarballBytes(tarball: Tarball): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of tarball.stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
