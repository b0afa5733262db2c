/**
 * Which operations each generated item goes to. With --thorough every item goes to every
 * operation; a default run sends each item once, the operations taken in turn from an offset the
 * seed picks, so that every item and every operation is covered in every run (the space is
 * covered systematically; the seed only decides which pairs) at a fraction of the requests.
 *
 * @example pickOperations(3, ['a', 'b'], { thorough: false, seed: 1 }) // [['b'], ['a'], ['b']]
 */
export function pickOperations<T>(
  count: number,
  operations: readonly T[],
  run: { thorough: boolean; seed: number },
): T[][] {
  const offset = Math.abs(run.seed) % operations.length;
  return Array.from({ length: count }, (_, index) =>
    run.thorough ? [...operations] : [operations[(index + offset) % operations.length]!],
  );
}
