/**
 * How many runs a fuzz property gets. `npm test` gives the small budget, with a fixed seed (the same
 * inputs every time); `npm run fuzz` the large one (`large`, default 20 times the small), with a
 * seed of the day that fast-check prints on a failure, so each run explores new inputs and a finding
 * can be replayed. `PETSTORE_FUZZ_RUNS=N` sets the runs of every property to N; `PETSTORE_FUZZ_SEED`
 * sets the seed.
 *
 * @example fc.assert(property, fuzzParameters(200)) // 200 runs in npm test, 4,000 in npm run fuzz
 */
export function fuzzRuns(small: number, large = small * 20): number {
  const explicit = Number(process.env.PETSTORE_FUZZ_RUNS);
  if (Number.isSafeInteger(explicit) && explicit > 0) return explicit;
  return isLargeFuzzRun() ? large : small;
}

/** True under `npm run fuzz` (npm names the script it runs in the environment it gives it). */
function isLargeFuzzRun(): boolean {
  return process.env.npm_lifecycle_event === 'fuzz' || process.env.PETSTORE_FUZZ_RUNS !== undefined;
}

/** The seed: fixed in `npm test`, else `PETSTORE_FUZZ_SEED` or one of the day. */
export function fuzzSeed(fixed: number): number {
  const explicit = Number(process.env.PETSTORE_FUZZ_SEED);
  if (process.env.PETSTORE_FUZZ_SEED !== undefined && Number.isSafeInteger(explicit)) return explicit;
  return isLargeFuzzRun() ? Math.floor(Date.now() / 86_400_000) : fixed;
}

/** fast-check's parameters for a property: its runs and its seed. */
export function fuzzParameters(small: number, fixedSeed = 20_261_125): { numRuns: number; seed: number } {
  return { numRuns: fuzzRuns(small), seed: fuzzSeed(fixedSeed) };
}

/** A vitest timeout for a property of `small` runs of at most `msPerRun` each. */
export function fuzzTimeoutMs(small: number, msPerRun: number): number {
  // At least 3 minutes: the suite shares two cores with the rest of `npm test`.
  return Math.max(180_000, fuzzRuns(small) * msPerRun);
}
