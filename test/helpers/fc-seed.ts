// Which seed the property tests (fast-check) run with. The suite is the same on every run:
// a fixed seed unless asked otherwise. `FC_SEED=random` (or `npm run test:explore`) explores
// new cases, one random seed for the whole run, printed so that a failure can be replayed with
// `FC_SEED=<that seed> npm test`; `FC_SEED=<n>` runs seed n anywhere.

/** The seed of every ordinary run, local and CI alike. */
export const FIXED_SEED = 20261121;

export interface SeedChoice {
  seed: number;
  /** A random seed, for exploring: new cases on each run. */
  explore: boolean;
}

/** The seed FC_SEED asks for; `random` draws one with `random`. */
export function chooseSeed(
  env: Readonly<Record<string, string | undefined>>,
  random: () => number = Math.random,
): SeedChoice {
  const asked = env.FC_SEED?.trim();
  if (asked === undefined || asked === "") return { seed: FIXED_SEED, explore: false };
  if (asked === "random") return { seed: Math.floor(random() * 0x7fffffff), explore: true };
  if (!/^-?\d+$/.test(asked) || !Number.isSafeInteger(Number(asked)))
    throw new Error(`FC_SEED='${asked}': give a whole number, or 'random' to explore new cases`);
  return { seed: Number(asked), explore: false };
}

/** The line the test run starts with: the seed in use, and how to change it. */
export function seedLine(choice: SeedChoice): string {
  return choice.explore
    ? `fast-check seed ${choice.seed} (random: exploring new cases). Replay a failure with: FC_SEED=${choice.seed} npm test`
    : `fast-check seed ${choice.seed} (fixed; FC_SEED=random or \`npm run test:explore\` explores new cases)`;
}
