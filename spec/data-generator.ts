import type { Faker } from '@faker-js/faker';
import type { createGeneratorSync } from 'json-schema-faker';
import { validatorAt, validatorOf } from './compile-spec.js';
import { fakeDataModules } from './fake-data-modules.js';
import { type GivenValueCheck, pointerSegment, prepareGiven } from './given-values.js';
import type { JsonSchema } from './openapi-types.js';
import { nodeAt, originOf, type ResolvedDocument } from './ref-resolver.js';
import { maxSchemaDepth } from './schema-depth.js';
import { stripAnnotations } from './schema-keywords.js';
import { standaloneValidator } from './schema-validator.js';

/**
 * Fake data from JSON schemas, repeatable under one seed: json-schema-faker walks the schema and
 * @faker-js/faker fills fields marked `x-faker: <faker method>` in the spec. `reset()` starts the
 * same sequence again. The two libraries are loaded on the first draw (`fake-data-modules.ts`), not
 * when the generator is made: a mock that never draws never loads them.
 *
 * Schemas of a compiled spec are generated from the document with their `$ref`s intact, resolved
 * as the generator reaches them: a recursive schema stops at `maxDepth` levels of nesting (and at
 * `maxReferenceDepth` references in a row), and a schema shared a thousand times is never copied.
 *
 * Two ways to draw. Without a `key`, each draw continues one sequence (the seed categories, the
 * kit's bodies, `Prefer: dynamic=true`): the values the document gives are not used. With a `key`
 * (the mock's answers: the resource asked for), the draw is the seed's and the key's alone, the same
 * every time, and every value the document gives (`given-values.ts`: examples, `default`, `enum`'s
 * first, `const`) that its own schema accepts is served as it is; only the rest is generated.
 * Either way a generated id is never empty or below 1.
 *
 * @example
 * const data = createDataGenerator(42);
 * data.generate({ type: 'string', 'x-faker': 'animal.type' }); // 'cat', every time with seed 42
 * data.generate(petSchema, { key: '/pets/1' }); // the same pet for /pets/1 on every call, its examples in it
 */
export interface DataGenerator {
  readonly seed: number;
  generate(schema: JsonSchema, options?: GenerateOptions): unknown;
  reset(): void;
  /**
   * Draws whose results are already known (precomputed seed data): made when the generator first
   * draws for real, right after the reset, so the sequence continues as if they had been made now.
   */
  replay(draws: (data: DataGenerator) => void): void;
}

interface GenerateOptions {
  /** Every optional field (else about half of them, the same half for the same draw). */
  allOptionals?: boolean;
  /** The draw is this key's (the resource asked for): the same data for the same key, the document's values in it. */
  key?: string;
}

/** Nesting levels of generated objects and arrays; deeper, only required fields are filled. */
const maxDepth = 5;
/** Draws after a first value the schema refuses, before the smallest instance and the branches one by one. */
const retries = 8;
/** References followed in a row (bounds recursion through allOf/anyOf, which adds no nesting). */
const maxReferenceDepth = 32;

type Generator = ReturnType<typeof createGeneratorSync>;
type GeneratorSchema = Parameters<Generator['generate']>[0];
type GeneratorOptions = NonNullable<Parameters<typeof createGeneratorSync>[0]>;
type Variant = 'some' | 'all' | 'minimal';
/** One draw of a prepared schema; `attempt` numbers the tries of one value. */
type Draw = (ready: GeneratorSchema, variant: Variant, attempt: number) => unknown;

export function createDataGenerator(seed: number): DataGenerator {
  const prepared = createPreparedSchemas();
  let current: { resolved: ResolvedDocument; pinned: boolean } | undefined;
  let started: ReturnType<typeof startGenerators> | undefined;
  let pendingReplays: ((data: DataGenerator) => void)[] = [];

  // json-schema-faker asks for each `#/...` reference it meets: answer from the current document.
  const refResolver = (ref: string): GeneratorSchema => {
    if (current === undefined || !ref.startsWith('#'))
      throw new Error(`Failed to generate data: unresolvable $ref ${ref.slice(0, 200)}`);
    let schema = prepared.at(current.resolved, ref.slice(1), current.pinned);
    // An alias (a `$ref` whose siblings were annotations) is followed here, not by json-schema-faker, which
    // counts it against refDepthMax: a chain of 40 described aliases served `[]` for an object. Bounded by
    // the nesting a document may have; a cycle of references alone was refused at start.
    for (let hops = 0; isAlias(schema) && hops < maxSchemaDepth; hops += 1)
      schema = prepared.at(current.resolved, schema.$ref.slice(1), current.pinned);
    return schema as GeneratorSchema;
  };
  const schemaAt = prepared.at;
  const standaloneSchema = prepared.standalone;

  const start = () => {
    started = startGenerators(seed, refResolver);
    const replays = pendingReplays;
    pendingReplays = [];
    for (const draws of replays) draws(dataGenerator);
    return started;
  };
  const reset = () => {
    started = undefined;
    pendingReplays = [];
  };

  const dataGenerator: DataGenerator = {
    seed,
    generate(schema, options = {}) {
      const generators = started ?? start();
      const { key } = options;
      const variant: Variant = options.allOptionals ? 'all' : 'some';
      const draw: Draw =
        key === undefined
          ? (ready, which) => generators.sequence[which].generate(ready)
          : (ready, which, attempt) => generators.keyed(ready, which, `${which}\u0000${attempt}\u0000${key}`);
      const pinned = key !== undefined;
      const origin = originOf(schema);
      if (origin === undefined) return draw(standaloneSchema(schema, pinned) as GeneratorSchema, variant, 0);
      current = { resolved: origin.resolved, pinned };
      try {
        const validator = validatorOf(schema, 'generated data');
        if (pinned) {
          // The values given, each valid where it is written, may still not fit together (an allOf of two
          // examples): then drawn as if none were given.
          const value = draw(schemaAt(origin.resolved, origin.pointer, true) as GeneratorSchema, variant, 0);
          if (validator.isValid(value)) return value;
          current = { resolved: origin.resolved, pinned: false };
        }
        return checkedDraw(
          schemaAt(origin.resolved, origin.pointer, false) as GeneratorSchema,
          { variant, draw, validator },
          () => branchValue(origin.resolved, origin.pointer, { at: schemaAt, variant, draw, validator }),
        );
      } finally {
        current = undefined;
      }
    },
    reset,
    replay(draws) {
      if (started === undefined) pendingReplays.push(draws);
      else draws(dataGenerator);
    },
  };

  return dataGenerator;
}

/** Longest string drawn where a schema's maxLength allows more (its minLength wins), in answers and in the kit's requests. */
const generatedStringBound = 1_000;

/**
 * The schemas json-schema-faker is given, prepared once each (`prepareGiven`, then annotations
 * stripped): by document, pointer and way of drawing (the document's values pinned or not), and for
 * schemas that stand alone.
 */
function createPreparedSchemas() {
  const standalone = new WeakMap<object, Map<boolean, JsonSchema>>();
  /** Schemas being prepared now (`pinned` and pointer), so a recursive reference is not prepared inside itself. */
  const preparing = new Set<string>();
  const documents = new WeakMap<object, Map<string, JsonSchema>[]>();
  const pathOf = (path: readonly string[]) => path.map((segment) => `/${pointerSegment(segment)}`).join('');
  const at = (resolved: ResolvedDocument, pointer: string, pinned: boolean): JsonSchema => {
    let byWay = documents.get(resolved);
    if (byWay === undefined) documents.set(resolved, (byWay = [new Map(), new Map()]));
    const byPointer = byWay[pinned ? 1 : 0]!;
    let schema = byPointer.get(pointer);
    if (schema !== undefined) return schema;
    const check: GivenValueCheck = (value, path) =>
      isValidAt(() => validatorAt(resolved, pointer + pathOf(path), 'a given value'), value);
    const raw = (nodeAt(resolved.source, pointer) ?? {}) as JsonSchema;
    // A list of referenced items reads the items' prepared schema (a recursive one is not read while it is made).
    const key = `${pinned}${pointer}`;
    preparing.add(key);
    try {
      const preparedRef = (ref: string) =>
        ref.startsWith('#') && !preparing.has(`${pinned}${ref.slice(1)}`)
          ? at(resolved, ref.slice(1), pinned)
          : undefined;
      schema = stripAnnotations(prepareGiven(raw, check, pinned, preparedRef), {
        keepFaker: true,
        maxStringLength: generatedStringBound,
      });
    } finally {
      preparing.delete(key);
    }
    byPointer.set(pointer, schema);
    return schema;
  };
  const standaloneAt = (schema: JsonSchema, pinned: boolean): JsonSchema => {
    if (typeof schema !== 'object') return schema;
    let byWay = standalone.get(schema);
    if (byWay === undefined) standalone.set(schema, (byWay = new Map()));
    let ready = byWay.get(pinned);
    if (ready === undefined) {
      const check: GivenValueCheck = (value, path) =>
        isValidAt(() => standaloneValidator(nodeAt(schema, pathOf(path)) as JsonSchema, 'a given value'), value);
      ready = stripAnnotations(prepareGiven(schema, check, pinned), {
        keepFaker: true,
        maxStringLength: generatedStringBound,
      });
      byWay.set(pinned, ready);
    }
    return ready;
  };
  return { at, standalone: standaloneAt };
}

/**
 * A tagged union's value (a oneOf/anyOf whose branches differ by a const or enum): each branch drawn
 * alone, a few times, until one the whole schema accepts.
 */
function branchValue(
  resolved: ResolvedDocument,
  pointer: string,
  how: {
    at: (resolved: ResolvedDocument, pointer: string, pinned: boolean) => JsonSchema;
    variant: Variant;
    draw: Draw;
    validator: { isValid(value: unknown): boolean };
  },
): unknown {
  const raw = nodeAt(resolved.source, pointer) as Record<string, unknown> | undefined;
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = raw?.[keyword];
    if (!Array.isArray(branches)) continue;
    for (let index = 0; index < branches.length; index += 1) {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const branch = how.at(resolved, `${pointer}/${keyword}/${index}`, false) as GeneratorSchema;
        const candidate = how.draw(branch, how.variant, 100 + index * 3 + attempt);
        if (how.validator.isValid(candidate)) return candidate;
      }
    }
  }
  return undefined;
}

/**
 * A draw the schema accepts. The generator does not always meet the schema: at maxDepth it fills
 * required fields with bare defaults ('' under minLength 1), and a oneOf's branch may match a second
 * branch too. Checked, then tried again (json-schema-faker may pick from an allOf'd enum the outer
 * enum refuses), then the smallest instance (no optional fields, shortest arrays), where recursion
 * ends by itself, then a tagged union's branches one by one; the first try if none passes.
 */
function checkedDraw(
  ready: GeneratorSchema,
  { variant, draw, validator }: { variant: Variant; draw: Draw; validator: { isValid(value: unknown): boolean } },
  branches: () => unknown,
): unknown {
  const value = draw(ready, variant, 0);
  if (validator.isValid(value)) return value;
  for (let attempt = 1; attempt <= retries; attempt += 1) {
    const again = draw(ready, variant, attempt);
    if (validator.isValid(again)) return again;
  }
  const minimal = draw(ready, 'minimal', 0);
  if (validator.isValid(minimal)) return minimal;
  return branches() ?? value;
}

/**
 * The two libraries set up for one seed: the three sequences (some optionals, all, none) and a
 * keyed draw, whose json-schema-faker and faker seeds are the seed's and the key's alone.
 */
function startGenerators(seed: number, refResolver: (ref: string) => GeneratorSchema) {
  const { Faker, locale, createGeneratorSync } = fakeDataModules();
  const faker: Faker = new Faker({ locale, seed });
  const keyedFaker: Faker = new Faker({ locale, seed });
  const common: GeneratorOptions = {
    seed,
    extensions: { faker },
    maxDepth,
    refDepthMax: maxReferenceDepth,
    maxItems: 5,
    fixedProbabilities: true,
    refResolver,
  };
  const options: Record<Variant, GeneratorOptions> = {
    some: common,
    all: { ...common, alwaysFakeOptionals: true },
    minimal: { ...common, optionalsProbability: 0, maxItems: 0, maxDepth: maxSchemaDepth, refDepthMax: maxSchemaDepth },
  };
  return {
    sequence: {
      some: createGeneratorSync(options.some),
      all: createGeneratorSync(options.all),
      minimal: createGeneratorSync(options.minimal),
    } satisfies Record<Variant, Generator>,
    keyed(ready: GeneratorSchema, variant: Variant, key: string): unknown {
      const keyedSeed = seedOf(seed, key);
      keyedFaker.seed(keyedSeed);
      return createGeneratorSync({ ...options[variant], seed: keyedSeed, extensions: { faker: keyedFaker } }).generate(
        ready,
      );
    },
  };
}

/** A prepared schema that is one local reference and nothing else. */
function isAlias(schema: JsonSchema): schema is { $ref: string } {
  if (schema === null || typeof schema !== 'object') return false;
  const ref = (schema as Record<string, unknown>).$ref;
  return typeof ref === 'string' && ref.startsWith('#') && Object.keys(schema).length === 1;
}

/** A seed made of the generator's seed and a key (FNV-1a, 32 bits), positive. */
function seedOf(seed: number, key: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < key.length; index += 1) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 1 || 1;
}

/** A given value's check: false when its schema cannot be compiled on its own (a reference outside it). */
function isValidAt(validator: () => { isValid(value: unknown): boolean }, value: unknown): boolean {
  try {
    return validator().isValid(value);
  } catch {
    return false;
  }
}
