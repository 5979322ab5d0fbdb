// A source directory to pack, made the same way on every run (a seeded generator): text files
// that compress about as well as code does, a share of incompressible files (images, wheels),
// nested directories, and, for the large one, a .git and a node_modules that packing leaves out.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** mulberry32: a small seeded generator, so that the tree is the same on every run. */
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYWORDS = [
  "def",
  "return",
  "import",
  "from",
  "class",
  "self",
  "if",
  "else",
  "for",
  "in",
  "await",
  "async",
  "const",
  "let",
  "function",
  "export",
  "None",
  "True",
  "False",
  "=",
  "(",
  ")",
  ":",
  "{",
  "}",
  "[",
  "]",
  ",",
  ".",
];

function vocabulary(random, size) {
  const letters = "abcdefghijklmnopqrstuvwxyz_";
  return Array.from({ length: size }, () => {
    const length = 3 + Math.floor(random() * 10);
    let word = "";
    for (let i = 0; i < length; i++) word += letters[Math.floor(random() * letters.length)];
    return word;
  });
}

function textOf(random, words, bytes) {
  const lines = [];
  let length = 0;
  while (length < bytes) {
    const indent = "    ".repeat(Math.floor(random() * 4));
    const count = 3 + Math.floor(random() * 9);
    const parts = [];
    for (let i = 0; i < count; i++)
      parts.push(
        random() < 0.3
          ? KEYWORDS[Math.floor(random() * KEYWORDS.length)]
          : words[Math.floor(random() ** 2 * words.length)],
      );
    const line = `${indent}${parts.join(" ")}`;
    lines.push(line);
    length += line.length + 1;
  }
  return Buffer.from(`${lines.join("\n")}\n`).subarray(0, bytes);
}

function binaryOf(random, bytes) {
  const data = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 4)
    data.writeUInt32LE(Math.floor(random() * 4294967296), Math.min(i, bytes - 4));
  return data;
}

/**
 * Writes `files` files of about `totalBytes` in all under `root` (created); with `extras`, also
 * a .git and a node_modules of `extras` files each. Returns { files, bytes }.
 */
export function writeSourceTree(root, { files, totalBytes, binaryShare = 0.15, extras = 0, seed = 26 }) {
  const random = generator(seed);
  const words = vocabulary(random, 3000);
  const dirs = [""];
  let written = 0;
  // The mean of the size spread below is 1.1075 x the average.
  const average = totalBytes / files / 1.1075;
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "langgraph.json"),
    '{"dependencies": ["."], "graphs": {"agent": "./agent.py:graph"}}\n',
  );
  writeFileSync(join(root, "agent.json"), '{"graphs": {"agent": "./agent.py:graph"}}\n');
  writeFileSync(join(root, "agent.py"), "graph = None\n");
  for (let i = 3; i < files; i++) {
    if (i % 25 === 0) {
      const parent = dirs[Math.floor(random() * dirs.length)];
      const dir = parent ? `${parent}/pkg${dirs.length}` : `pkg${dirs.length}`;
      mkdirSync(join(root, dir), { recursive: true });
      dirs.push(dir);
    }
    const dir = dirs[Math.floor(random() * dirs.length)];
    // Sizes spread around the average, a few files much larger.
    const size = Math.max(16, Math.round(average * (random() < 0.05 ? 6 : 0.25 + random() * 1.2)));
    const binary = random() < binaryShare;
    const name = `${binary ? "asset" : "module"}_${i}.${binary ? "bin" : "py"}`;
    writeFileSync(join(root, dir, name), binary ? binaryOf(random, size) : textOf(random, words, size));
    written += size;
  }
  for (const left of extras > 0 ? [".git/objects", "node_modules/dep/lib"] : []) {
    mkdirSync(join(root, left), { recursive: true });
    for (let i = 0; i < extras; i++) writeFileSync(join(root, left, `f${i}.js`), textOf(random, words, 4096));
  }
  return { files, bytes: written };
}
