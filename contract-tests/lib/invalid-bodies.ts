import fc from 'fast-check';

/** A request body that breaks NewCategory, and why (for the report). */
export interface InvalidBody {
  body: unknown;
  why: string;
}

/**
 * Generates createCategory bodies with values of the wrong type (interface section 4,
 * createCategory rule 1: "contains invalid values"): `name` or `description` that is not a string,
 * or a body that is not an object at all. Every value is plain JSON (no NaN, no Infinity).
 *
 * @example fc.sample(invalidNewCategories('contract-test-ab12'), 1) // [{ body: { name: 42 }, why: 'name is not a string' }]
 */
export function invalidNewCategories(validName: string): fc.Arbitrary<InvalidBody> {
  const notAString = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
    fc.record({ value: fc.string({ maxLength: 8 }) }),
  );
  const notAnObject = fc.oneof(
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.integer(),
    fc.string({ maxLength: 12 }),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.oneof(
    notAString.map((name): InvalidBody => ({ body: { name }, why: 'name is not a string' })),
    notAString.map(
      (description): InvalidBody => ({ body: { name: validName, description }, why: 'description is not a string' }),
    ),
    fc.tuple(notAString, notAString).map(
      ([name, description]): InvalidBody => ({
        body: { name, description },
        why: 'name and description are not strings',
      }),
    ),
    notAnObject.map((body): InvalidBody => ({ body, why: 'the body is not a JSON object' })),
  );
}
