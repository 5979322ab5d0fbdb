// A change counter per stored deployment, kept out of the stored record (so it is not saved)
// in a WeakMap. The store bumps it on every change to a deployment; api/views.ts keys its cache
// of serialised views on it.
const versions = new WeakMap<object, number>();

export function touch(record: object): void {
  versions.set(record, (versions.get(record) ?? 0) + 1);
}

export function versionOf(record: object): number {
  return versions.get(record) ?? 0;
}
