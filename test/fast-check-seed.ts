// Property tests (fast-check) explore new cases on every local run, and run the same cases in
// CI, where a failure must be reproducible and must not come and go from one run to the next:
// with CI set, the seed is fixed. FC_SEED=<n> sets it anywhere (a failing property prints the
// seed and path that reproduce it).
import fc from "fast-check";
import { isCi } from "../src/output/format.js";

const seed = process.env.FC_SEED ?? (isCi(process.env) ? "20261121" : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
