// The --state journal (persistence.ts): a torn last line is dropped and damage refused; replay
// over the state a journal follows gives the state back, and replaying it again over the state
// it was folded into changes nothing; a fold keeps every write at every moment. Nothing here
// is timed.
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
import { httpRequest } from "../../test/helpers/emulator.js";
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
import { JournalWriter, readJournal } from "./journal.js";
import { readStateFiles, StateFile, type StateFileOptions } from "./persistence.js";
import { replay } from "./replay.js";
import { startEmulator } from "./server.js";
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

/** A state as its file would hold it (a JSON round trip, as a save and a load make it). */
function comparable(state: EmulatorState | null): EmulatorState {
  return JSON.parse(JSON.stringify(state)) as EmulatorState;
}
const stateOf = (store: Store) => comparable(store.contents());

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
 * What a `kill -9` at this moment leaves: the state file and its journal as they are now,
 * copied elsewhere (writes are synchronous, so between two steps of the event loop the files
 * are what a killed process leaves). Returns the copy's state file path.
 */
function crashImage(path: string): string {
  const copy = join(mkdtempSync(join(dir, "crash-")), basename(path));
  for (const suffix of ["", ".journal"]) {
    if (existsSync(path + suffix)) copyFileSync(path + suffix, copy + suffix);
  }
  return copy;
}

/** Journal entries that carry any text: a fail rule's message. */
const entryWith = (message: string): JournalEntry => ({
  fail_next: [{ deployment_id: null, tenant_id: null, stage: "DEPLOYING", message }],
});

function writeJournal(entries: JournalEntry[]): string {
  const path = `${freshPath()}.journal`;
  const journal = JournalWriter.create(path);
  for (const entry of entries) journal.append(entry);
  journal.close();
  return path;
}

describe("journal lines", () => {
  it("come back as written, and a last line cut anywhere is dropped with the ones before it kept", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary", maxLength: 40 }), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        (texts, cutSeed) => {
          const entries = texts.map(entryWith);
          const path = writeJournal(entries);
          expect(readJournal(path)).toEqual({ entries, tornBytes: 0 });
          const whole = statSync(path).size;
          const last = Buffer.byteLength(`${JSON.stringify(entries.at(-1))}\n`);
          const left = cutSeed % last; // 0 .. length-1 bytes of it remain
          truncateSync(path, whole - last + left);
          expect(readJournal(path)).toEqual({ entries: entries.slice(0, -1), tornBytes: left });
        },
      ),
    );
  });

  it("a last line of zeros (a power cut) is dropped too; a damaged line with more after it is refused", () => {
    const entries = ["a", "déploiement ✓ 🚀", "c"].map(entryWith);
    const path = writeJournal(entries);
    const good = readFileSync(path);
    writeFileSync(path, Buffer.concat([good, Buffer.alloc(50)]));
    expect(readJournal(path)).toEqual({ entries, tornBytes: 50 });
    writeFileSync(path, Buffer.concat([good, Buffer.alloc(50), Buffer.from("\n")]));
    expect(readJournal(path)).toEqual({ entries, tornBytes: 51 });

    const damaged = Buffer.from(good);
    damaged[10] = 0; // inside the first line
    writeFileSync(path, damaged);
    expect(() => readJournal(path)).toThrow(/^line 1 is not JSON, with more lines after it$/);
    writeFileSync(path, Buffer.concat([Buffer.from('{"seq":"one"}\n'), good]));
    expect(() => readJournal(path)).toThrow(/^line 1 is not a change: "seq" is not a number/);
  });
});

describe("replay", () => {
  it("of the journal over the state it follows gives the state; again over that state, it changes nothing", () => {
    fc.assert(
      fc.property(storeOps({ reset: true }), fc.nat(60), (ops: StoreOp[], foldAt) => {
        const entries: JournalEntry[] = [];
        // Entries as the journal stores them: serialised when committed.
        const store = newStore((change) => entries.push(JSON.parse(JSON.stringify(change.entry()))));
        const clock = new ManualClock();
        let folded = stateOf(store);
        let foldedAfter = 0;
        ops.forEach((op, i) => {
          if (i === foldAt) {
            folded = stateOf(store);
            foldedAfter = entries.length;
          }
          clock.advance(1000);
          applyOp(store, op, clock.now());
        });
        const journal = entries.slice(foldedAfter);
        expect(comparable(replay(folded, journal))).toEqual(stateOf(store));
        // A kill between a fold's rename and the journal's removal: the whole journal again,
        // over the state it was folded into.
        expect(comparable(replay(stateOf(store), entries))).toEqual(stateOf(store));
      }),
    );
  });
});

describe("the journal on disk", () => {
  const stderr = () => vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("after a kill -9 mid-append: the torn last line is dropped, everything before it kept, and a start says so", async () => {
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
    const lineBytes = statSync(`${path}.journal`).size - journalBefore;
    file.unlock(); // the process is gone: its lock is free, its files as they are

    expect(comparable(readStateFiles(crashImage(path)).state)).toEqual(after);
    // Lengths of the last line that a kill in the middle of its write can leave (the tests
    // above cut generated lines at every byte).
    const lengths = new Set([0, 1, 4, 7, 8, 9, 20, lineBytes >> 1, lineBytes - 2, lineBytes - 1]);
    for (const left of lengths) {
      const image = crashImage(path);
      truncateSync(`${image}.journal`, journalBefore + left);
      const saved = readStateFiles(image);
      expect(comparable(saved.state), `${left} of ${lineBytes} bytes`).toEqual(before);
      expect(saved.tornBytes).toBe(left);
    }

    // A start on such a file: it serves what was acknowledged, says what it dropped, and folds
    // the journal into the state file.
    const image = crashImage(path);
    truncateSync(`${image}.journal`, journalBefore + Math.floor(lineBytes / 2));
    const written = stderr();
    const em = await startEmulator({ port: 0, statePath: image, stageMs: 0 });
    try {
      const message = written.mock.calls.map((call) => String(call[0])).join("");
      expect(message).toMatch(/dropped the last line of .*\.journal .*never acknowledged/);
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
    bytes[200] = 0; // inside the first of three lines (about 1.3 kB each)
    writeFileSync(`${damaged}.journal`, bytes);
    await expect(startEmulator({ port: 0, statePath: damaged })).rejects.toThrow(
      /journal .*\.journal of the emulator state file .* is unusable: line 1 is not JSON, with more lines after it/,
    );
    expect(readFileSync(`${damaged}.journal`)).toEqual(bytes);

    const orphan = crashImage(path);
    rmSync(orphan);
    await expect(startEmulator({ port: 0, statePath: orphan })).rejects.toThrow(
      /the journal .*\.journal exists but the emulator state file .* does not/,
    );
    expect(existsSync(`${orphan}.journal`)).toBe(true);
  });

  it("folds keep every write at every moment; the state file alone is always whole", () => {
    const path = freshPath();
    // A fold as soon as the journal outgrows the state file.
    const { file, store } = openState(path, { foldMinBytes: 1 });
    const clock = new ManualClock();
    store.createDeployment(TENANTS[0]!, createRequest("first", "internal_container"), clock.now());
    let folds = 0;
    let journalBytes = 0;
    for (const op of fc.sample(storeOp(), { numRuns: 300 })) {
      clock.advance(1000);
      applyOp(store, op, clock.now());
      // A kill now would leave exactly what was acknowledged.
      expect(comparable(readStateFiles(crashImage(path)).state)).toEqual(stateOf(store));
      // The state file alone is always whole: renamed into place, never written over.
      expect(checkStateShape(JSON.parse(readFileSync(path, "utf8")))).toBeNull();
      const bytes = existsSync(`${path}.journal`) ? statSync(`${path}.journal`).size : 0;
      if (bytes < journalBytes) folds++;
      journalBytes = bytes;
    }
    expect(folds).toBeGreaterThan(3);
    file.close();
    // A clean stop leaves the state file alone, holding everything.
    expect(existsSync(`${path}.journal`)).toBe(false);
    expect(comparable(JSON.parse(readFileSync(path, "utf8")))).toEqual(stateOf(store));
  });
});
