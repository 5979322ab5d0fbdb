// Hard links to credential files. A credential file is left out by its name (credentials.ts),
// but a hard link to it is the same file under any name: `ln .env notes.txt` would ship the
// secrets of .env as notes.txt. So a packed file that is the same file (device and inode) as a
// credential file the walk did not pack is left out too.
//
// Cheap on purpose: only a packed file with more than one link (its lstat says how many) can
// be one, and only when there is one are the credential files not packed looked at (an lstat
// each). A link to a file outside the directory, or inside a directory left out, is not seen:
// only what the walk met can be compared.
import { lstatSync, type Stats } from "node:fs";
import type { SourceFile } from "./walked-file.js";

/** A credential file the walk did not pack (left out as one, or by an ignore file). */
export interface UnpackedCredential {
  absolute: string;
  /** Relative to the root, as the walk reports it. */
  path: string;
}

export interface CredentialLink {
  /** The packed file that is a hard link to a credential file. */
  entry: SourceFile;
  /** The credential file's path. */
  linkTo: string;
}

/**
 * The files of `linked` (packed, with more than one link each, in walk order) that are the
 * same file as one of `credentials`; the first credential file in walk order names it.
 */
export function credentialLinks(
  linked: readonly SourceFile[],
  credentials: readonly UnpackedCredential[],
): CredentialLink[] {
  if (linked.length === 0 || credentials.length === 0) return [];
  const credentialByInode = new Map<string, string>();
  for (const { absolute, path } of credentials) {
    let stats: Stats;
    try {
      stats = lstatSync(absolute);
    } catch {
      // Gone since the directory was read: nothing to be a link to.
      continue;
    }
    const key = `${stats.dev}:${stats.ino}`;
    if (stats.isFile() && stats.nlink > 1 && !credentialByInode.has(key)) credentialByInode.set(key, path);
  }
  const links: CredentialLink[] = [];
  for (const entry of linked) {
    const linkTo = credentialByInode.get(`${entry.dev}:${entry.ino}`);
    if (linkTo !== undefined) links.push({ entry, linkTo });
  }
  return links;
}
