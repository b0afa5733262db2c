/**
 * Most subschemas one value may be checked against without reading deeper into it: through `$ref`,
 * `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and `dependentSchemas`, counted along every
 * path (a shared schema counts once per path that reaches it, as the validator checks it). A
 * validator has no memory across the branches of an `anyOf`: ten levels of ten shared branches are
 * 10^10 checks of one value (a value matching none took minutes and the heap), so such a schema is
 * refused at start. Real documents stay far below it (the largest of the corpus: see
 * test/hardening/schema-fan-out.test.ts).
 */
export const maxSameValueChecks = 100_000;

/**
 * Refuses the first schema whose checks of one value pass `maxSameValueChecks`, naming where it is.
 * `edges` are the same-value edges of the audited schemas, known to hold no cycle; linear in them.
 *
 * @example refuseSameValueFanOut(audited, sameValueEdges, fail); // throws for a 10-level anyOf fan-out
 */
export function refuseSameValueFanOut(
  audited: ReadonlyMap<object, string>,
  edges: ReadonlyMap<object, object[]>,
  fail: (pointer: string, problem: string) => never,
): void {
  const checks = new Map<object, number>();
  for (const start of audited.keys()) {
    if (checks.has(start)) continue;
    // Post-order without recursion: a document may chain thousands of references.
    const stack: { node: object; next: number }[] = [{ node: start, next: 0 }];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const targets = edges.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!checks.has(target)) stack.push({ node: target, next: 0 });
        continue;
      }
      stack.pop();
      // Saturated past the bound: the count of a real fan-out overflows any number.
      const total = targets.reduce(
        (sum, target) => Math.min(sum + (checks.get(target) ?? 1), maxSameValueChecks + 1),
        1,
      );
      checks.set(frame.node, total);
      if (total > maxSameValueChecks && audited.has(frame.node))
        fail(
          audited.get(frame.node)!,
          `the schema checks one value against more than ${maxSameValueChecks} subschemas (anyOf, oneOf, allOf, not, if or $ref nested through shared schemas, counted along every path): validating a request would take minutes; flatten the nesting`,
        );
    }
  }
}
