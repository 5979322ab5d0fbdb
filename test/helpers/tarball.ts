// A packed tarball's bytes, read from its temporary file (src/upload/spool.ts), for tests that
// look inside it.
import type { Tarball } from "../../src/upload/spool.js";

export async function tarballBytes(tarball: Tarball): Promise<Buffer> {
  const bytes = Buffer.alloc(tarball.bytes);
  let position = 0;
  while (position < bytes.length) {
    const read = await tarball.readAt(bytes.subarray(position), position);
    if (read === 0) throw new Error(`the tarball ended at ${position} of ${bytes.length} bytes`);
    position += read;
  }
  return bytes;
}
