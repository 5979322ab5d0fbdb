// The --state journal (persistence.ts): records framed so that a torn last one is dropped and
// damage refused; replay over the snapshot a journal follows gives the state back, also over
// a snapshot taken in slices while changes went on (compaction's); compaction keeps every
// write at every moment; a state file from before the journal loads. Nothing here is timed.
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { closeTestEmulators, httpRequest, startTestEmulator } from "../../test/helpers/emulator.js";
import {
  applyOp,
  createRequest,
  newStore,
  type StoreOp,
  storeOp,
  storeOps,
  TENANTS,
} from "../../test/helpers/store-ops.js";
import { ManualClock } from "./clock.js";
import { sign } from "./ids.js";
import { DamagedJournalError, decodeRecords, encodeRecord } from "./journal-record.js";
import { readStateFiles, StateFile, type StateFileOptions } from "./persistence.js";
import { replay } from "./replay.js";
import { startEmulator } from "./server.js";
import { snapshotSlices, snapshotText } from "./snapshot.js";
import { checkStateShape, type EmulatorState } from "./state.js";
import type { JournalEntry } from "./state-change.js";
import { MemoryTarballs, Store } from "./store.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cpctl-emulator-journal-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
const freshPath = () => {
  const sub = join(dir, `case-${++counter}`);
  return join(mkdtempSync(`${sub}-`), "cp.state.json");
};

/** The store's state as its state file would hold it (journal_from left out of comparisons). */
function stateOf(store: Store): Omit<EmulatorState, "journal_from"> {
  return comparable(JSON.parse(snapshotText(store.contents(), 0)));
}

function comparable(state: EmulatorState | null): Omit<EmulatorState, "journal_from"> {
  const { journal_from: _, ...rest } = JSON.parse(JSON.stringify(state)) as EmulatorState;
  return rest;
}

/** A StateFile and its Store, as startEmulator wires them. */
function openState(path: string, options: StateFileOptions = {}) {
  const file = new StateFile(path, options);
  file.lock();
  const store = new Store(file.load(), {
    stageMs: 1000,
    tarballs: new MemoryTarballs(),
    commit: (change) => file.commit(change),
  });
  file.attach(() => store.contents());
  return { file, store };
}

/**
 * What a `kill -9` at this moment leaves: the state file and its journals as they are now,
 * copied elsewhere (writes are synchronous, so between two steps of the event loop the
 * files are what a killed process leaves). Returns the copy's state file path.
 */
function crashImage(path: string): string {
  const copy = join(mkdtempSync(join(dir, "crash-")), basename(path));
  for (const suffix of ["", ".journal", ".journal.old"]) {
    if (existsSync(path + suffix)) copyFileSync(path + suffix, copy + suffix);
  }
  return copy;
}

function flip(data: Buffer, at: number, mask: number): void {
  data[at] = data[at]! ^ mask;
}

describe("journal records", () => {
  const payloads = ['{"n":1}', JSON.stringify({ n: 2, text: "déploiement ✓ 🚀" }), "{}"];

  it("come back as written", () => {
    const data = Buffer.concat(payloads.map(encodeRecord));
    expect(decodeRecords(data)).toEqual({ payloads, end: data.length, torn: 0 });
  });

  it("a last record cut anywhere is dropped, and the ones before it are kept", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary", maxLength: 40 }), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        (texts, cutSeed) => {
          const records = texts.map((t) => encodeRecord(JSON.stringify(t)));
          const whole = Buffer.concat(records);
          const last = records.at(-1)!;
          const cut = 1 + (cutSeed % (last.length - 1)); // 1 .. length-1 bytes of it remain
          const torn = whole.subarray(0, whole.length - last.length + cut);
          const decoded = decodeRecords(torn);
          expect(decoded.payloads).toEqual(texts.slice(0, -1).map((t) => JSON.stringify(t)));
          expect(decoded.torn).toBe(cut);
          expect(decoded.end).toBe(whole.length - last.length);
        },
      ),
    );
  });

  it("a last record whose bytes are wrong, or zeros where a record should be, is dropped too", () => {
    const good = Buffer.concat(payloads.slice(0, 2).map(encodeRecord));
    const last = encodeRecord(payloads[2]!);
    flip(last, last.length - 1, 0xff);
    expect(decodeRecords(Buffer.concat([good, last]))).toMatchObject({
      payloads: payloads.slice(0, 2),
      torn: 8 + 2,
    });
    // A file system that grew the file but never wrote the data (a power cut): zeros.
    const zeros = Buffer.concat([good, Buffer.alloc(50)]);
    expect(decodeRecords(zeros)).toMatchObject({ payloads: payloads.slice(0, 2), torn: 50 });
  });

  it("a damaged record with more after it is refused, never skipped", () => {
    const records = payloads.map(encodeRecord);
    flip(records[1]!, 10, 0x01); // a payload byte
    expect(() => decodeRecords(Buffer.concat(records))).toThrow(DamagedJournalError);
    const lengths = payloads.map(encodeRecord);
    lengths[0]!.writeUInt32LE(3, 0); // a length that no longer matches
    expect(() => decodeRecords(Buffer.concat(lengths))).toThrow(/checksum does not match at byte 0/);
  });
});

describe("replay", () => {
  it("of the journal over the snapshot it follows gives the state, also over a snapshot taken in slices meanwhile", () => {
    fc.assert(
      fc.property(
        storeOps({ reset: true }),
        fc.nat(60),
        fc.integer({ min: 1, max: 3000 }),
        (ops: StoreOp[], snapshotAt, sliceChars) => {
          const entries: JournalEntry[] = [];
          let next = 0;
          // Entries as the journal stores them: serialised when committed.
          const store = newStore((change) => entries.push(JSON.parse(JSON.stringify(change.entry(next++)))));
          const clock = new ManualClock();
          // Compaction's snapshot: started after `snapshotAt` operations, its slices taken one
          // after each later operation, so that it mixes moments.
          let slices: Generator<string> | null = null;
          let text = "";
          let from = 0;
          const start = () => {
            from = next;
            slices = snapshotSlices(store.contents(), from, sliceChars);
          };
          const take = () => {
            const slice = slices?.next();
            if (slice && !slice.done) text += slice.value;
          };
          ops.forEach((op, i) => {
            if (i === snapshotAt) {
              start();
              take();
            }
            clock.advance(1000);
            applyOp(store, op, clock.now());
            take();
          });
          if (!slices) start();
          for (const slice of slices!) text += slice;

          const snapshot = JSON.parse(text) as EmulatorState;
          expect(checkStateShape(snapshot)).toBeNull();
          expect(snapshot.journal_from).toBe(from);
          const replayed = replay(snapshot, entries);
          expect(comparable(replayed)).toEqual(stateOf(store));
          expect(replayed.journal_from).toBe(next);
          // Entries before the snapshot's journal_from are skipped, so a whole journal replays alike.
          expect(comparable(replay(snapshot, entries.slice(Math.max(0, from - 3))))).toEqual(stateOf(store));
        },
      ),
    );
  });
});

describe("the journal on disk", () => {
  const stderr = () => vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("after a kill -9 mid-append: the torn last record is dropped, everything before it kept, and a start says so", async () => {
    const path = freshPath();
    const { file, store } = openState(path);
    const clock = new ManualClock();
    for (let i = 0; i < 6; i++) {
      clock.advance(1000);
      store.createDeployment(TENANTS[i % 2]!, createRequest(`app-${i}`, "internal_container"), clock.now());
    }
    const before = stateOf(store);
    const journalBefore = statSync(`${path}.journal`).size;
    applyOp(store, { kind: "patch", pick: 2, image: 3, secrets: true }, clock.now());
    const after = stateOf(store);
    const recordBytes = statSync(`${path}.journal`).size - journalBefore;
    file.unlock(); // the process is gone: its lock is free, its files as they are

    expect(comparable(readStateFiles(crashImage(path)).state)).toEqual(after);
    // Lengths of the last record that a kill in the middle of its write can leave: within
    // and just past its header, half of it, all but the end (journal-record tests cover
    // every cut point of generated records).
    const lengths = new Set([0, 1, 4, 7, 8, 9, 20, recordBytes >> 1, recordBytes - 2, recordBytes - 1]);
    for (const left of lengths) {
      const image = crashImage(path);
      truncateSync(`${image}.journal`, journalBefore + left);
      const saved = readStateFiles(image);
      expect(comparable(saved.state), `${left} of ${recordBytes} bytes`).toEqual(before);
      expect(saved.tornBytes).toBe(left);
    }

    // A start on such a file: it serves what was acknowledged, says what it dropped, and folds
    // the journal into the state file.
    const image = crashImage(path);
    truncateSync(`${image}.journal`, journalBefore + Math.floor(recordBytes / 2));
    const written = stderr();
    const em = await startEmulator({ port: 0, statePath: image, stageMs: 0 });
    try {
      const message = written.mock.calls.map((call) => String(call[0])).join("");
      expect(message).toMatch(/dropped the last record of .*\.journal .*never acknowledged/);
      expect(existsSync(`${image}.journal`)).toBe(false);
      expect(comparable(JSON.parse(readFileSync(image, "utf8")))).toEqual(before);
      const listed = await httpRequest(`${em.url}/v2/deployments?limit=100`, {
        headers: { "X-Api-Key": "k", "X-Tenant-Id": TENANTS[0]! },
      });
      expect(listed.json.resources.map((d: { name: string }) => d.name).sort()).toEqual([
        "app-0",
        "app-2",
        "app-4",
      ]);
    } finally {
      await em.close();
    }
  });

  it("refuses a journal damaged in the middle, and a journal without its state file, and overwrites neither", async () => {
    const path = freshPath();
    const { file, store } = openState(path);
    for (let i = 0; i < 4; i++)
      store.createDeployment(TENANTS[0]!, createRequest(`app-${i}`, "internal_container"), 1000 + i);
    file.unlock();

    const damaged = crashImage(path);
    const bytes = readFileSync(`${damaged}.journal`);
    flip(bytes, 200, 0x20); // inside the first record after the header (of three, about 1.3 kB each)
    writeFileSync(`${damaged}.journal`, bytes);
    await expect(startEmulator({ port: 0, statePath: damaged })).rejects.toThrow(
      /journal .*\.journal of the emulator state file .* is unusable: a record whose checksum does not match at byte \d+, with more records after it/,
    );
    expect(readFileSync(`${damaged}.journal`)).toEqual(bytes);

    const orphan = crashImage(path);
    rmSync(orphan);
    await expect(startEmulator({ port: 0, statePath: orphan })).rejects.toThrow(
      /the journal .*\.journal exists but the emulator state file .* does not/,
    );
    expect(existsSync(`${orphan}.journal`)).toBe(true);
  });

  it("compaction keeps every write, at every moment, while writes go on; its snapshot loads alone", async () => {
    const path = freshPath();
    // Compaction as soon as the journal outgrows the snapshot, in slices of about one record.
    const { file, store } = openState(path, { compactionMinBytes: 1, compactionSliceChars: 400 });
    const clock = new ManualClock();
    store.createDeployment(TENANTS[0]!, createRequest("first", "internal_container"), clock.now());
    const ops = fc.sample(storeOp(), { numRuns: 300 });
    const journalsFrom = new Set<number>();
    let duringCompaction = 0;
    for (const op of ops) {
      clock.advance(1000);
      applyOp(store, op, clock.now());
      // A kill now would leave exactly what was acknowledged.
      const image = crashImage(path);
      expect(comparable(readStateFiles(image).state)).toEqual(stateOf(store));
      if (existsSync(`${path}.journal.old`)) duringCompaction++;
      // The state file alone is always whole: renamed into place, never written over.
      const snapshot = JSON.parse(readFileSync(path, "utf8")) as EmulatorState;
      expect(checkStateShape(snapshot)).toBeNull();
      journalsFrom.add(snapshot.journal_from!);
      // Let the compaction under way write a slice (or finish).
      await new Promise((resolve) => setImmediate(resolve));
    }
    await file.compactionSettled();
    expect(existsSync(`${path}.journal.old`)).toBe(false);
    // Several compactions happened, and writes were made while one was under way.
    expect(journalsFrom.size).toBeGreaterThan(3);
    expect(duringCompaction).toBeGreaterThan(0);
    await file.close();
    // A clean stop leaves the state file alone, holding everything.
    expect(existsSync(`${path}.journal`)).toBe(false);
    expect(comparable(JSON.parse(readFileSync(path, "utf8")))).toEqual(stateOf(store));
  });

  it("a write made while the snapshot is being written goes to the new journal and survives a kill at each step", async () => {
    const path = freshPath();
    const { file, store } = openState(path, { compactionMinBytes: 1, compactionSliceChars: 200 });
    const names: string[] = [];
    const create = (name: string) => {
      store.createDeployment(TENANTS[0]!, createRequest(name, "internal_container"), 1000);
      names.push(name);
    };
    create("first"); // no state file yet: written whole
    // Into the journal, until it outgrows the snapshot: then compaction starts (step 1: rotation).
    for (let i = 0; i < 5 && !existsSync(`${path}.journal.old`); i++) create(`before-${i}`);
    expect(existsSync(`${path}.journal.old`)).toBe(true);
    const atRotation = crashImage(path);
    const rotated = [...names];
    create("during"); // into the new journal, while the snapshot is still being written
    const during = crashImage(path);
    const expected = stateOf(store);
    await file.compactionSettled();
    const after = crashImage(path);
    expect(comparable(readStateFiles(atRotation).state).deployments.map((d) => d.name)).toEqual(rotated);
    for (const image of [during, after]) expect(comparable(readStateFiles(image).state)).toEqual(expected);
    // The new snapshot starts where the new journal does; the old journal is gone.
    expect(existsSync(`${after}.journal.old`)).toBe(false);
    expect(JSON.parse(readFileSync(after, "utf8")).journal_from).toBeGreaterThan(0);
    file.unlock();
  });
});

describe("a state file from before the journal", () => {
  afterEach(closeTestEmulators);

  it("loads as it is, and after a change and a clean stop it is still one file in the same format", async () => {
    const path = freshPath();
    copyFileSync(new URL("../../test/fixtures/emulator-state-before-journal.json", import.meta.url), path);
    const legacy = JSON.parse(readFileSync(path, "utf8")) as EmulatorState;
    expect(legacy.journal_from).toBeUndefined();

    // A day after the file was written: its upload URL has expired.
    const clock = new ManualClock(legacy.uploads[0]!.issued_at + 24 * 3_600_000);
    const em = await startTestEmulator({ statePath: path, clock });
    const key = { auth: "legacy-key" };
    const listed = (await em.get("/v2/deployments", key)).json.resources;
    expect(listed.map((d: { name: string }) => d.name)).toEqual(["legacy-source", "legacy-container"]);
    const patched = listed[1];
    expect(patched.secrets).toEqual([{ name: "TOKEN", value: "legacy-secret-value" }]);
    expect((await em.get(`/v2/deployments/${patched.id}/revisions`, key)).json.resources).toHaveLength(2);
    expect((await em.get("/_emulator/revisions/fail-next", key)).json.rules).toEqual([
      expect.objectContaining({ stage: "DEPLOYING", message: "legacy rule" }),
    ]);
    expect(em.emulator.tracingProjects().map((p) => p.name)).toEqual(["legacy-container", "legacy-source"]);
    // An upload URL issued before is still signed right (the key was kept): refused as expired
    // (the manual clock is past its lifetime), not as forged.
    const [upload] = legacy.uploads;
    const put = await httpRequest(
      `${em.url}/_uploads/${upload!.id}?signature=${sign(legacy.signing_key, upload!.id)}`,
      {
        method: "PUT",
        headers: { "Content-Type": "application/gzip" },
        body: Buffer.from([0x1f, 0x8b]),
      },
    );
    expect(put.status).toBe(403);
    expect(put.json.detail).toMatch(/has expired/);
    const made = await em.post("/v2/deployments", em.createBody("internal_container", "after-journal"), key);
    expect(made.status).toBe(201);
    await em.close();

    const after = JSON.parse(readFileSync(path, "utf8")) as EmulatorState;
    expect(existsSync(`${path}.journal`)).toBe(false);
    expect(checkStateShape(after)).toBeNull();
    expect(Object.keys(after)).toEqual([
      ...Object.keys(legacy).slice(0, 5),
      "journal_from",
      ...Object.keys(legacy).slice(5),
    ]);
    expect(after.signing_key).toBe(legacy.signing_key);
    expect(after.deployments.map((d) => d.name)).toEqual([
      "legacy-container",
      "legacy-source",
      "after-journal",
    ]);
    expect(after.deployments.slice(0, 2)).toEqual(legacy.deployments);
    expect(after.uploads).toEqual(legacy.uploads);
    // The loaded fail rule was taken by the new deployment's revision.
    expect(after.fail_next).toEqual([]);
    expect(after.deployments[2]!.revisions[0]).toMatchObject({
      fail_at: "DEPLOYING",
      fail_message: "legacy rule",
    });
  });
});
