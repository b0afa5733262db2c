import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpecText } from '../../spec/load-spec.js';
import { SpecError } from '../../spec/ref-resolver.js';
import { deepestSchema, maxSchemaDepth } from '../../spec/schema-depth.js';
import { createMockApp } from '../../src/core/mock-app.js';
import { compileSpec } from '../../src/core/spec/compiled-spec.js';
import { runMockCli, type SpecRun } from '../hardening/support/spec-cli.js';

// Issue 42 item 4, a document served as it is written, however deep it nests: up to the limit every request
// is validated and answered; past it the document is refused at start in one line naming the schema and the
// limit. Before, a $ref chain of 320 links holding `allOf`, `properties` or `items` (or 400 levels of inline
// `items`) started, then answered 500 at every request: ajv's lazy compile overflowed the stack.

/** The schema every chain ends in: one required string, with an example. */
const leaf = '{"type":"object","required":["name"],"properties":{"name":{"type":"string","example":"rex"}}}';

/** How one level of a generated schema wraps the level below it (`inner`). */
const shapes = {
  /** A chain of components, each a bare `$ref` to the next (the issue's case). */
  ref: { linked: true, wrap: (inner: string) => inner },
  /** Each component an object whose required property refers to the next. */
  'required property': {
    linked: true,
    wrap: (inner: string) => `{"type":"object","required":["x"],"properties":{"x":${inner}}}`,
  },
  /** Each component an `allOf` of a reference to the next. */
  'allOf of a $ref': { linked: true, wrap: (inner: string) => `{"allOf":[${inner}]}` },
  /** One component, nested inline through `properties`. */
  properties: {
    linked: false,
    wrap: (inner: string) => `{"type":"object","required":["x"],"properties":{"x":${inner}}}`,
  },
  /** One component, nested inline through `items`. */
  items: { linked: false, wrap: (inner: string) => `{"type":"array","minItems":1,"items":${inner}}` },
  /** One component, nested inline through `anyOf`. */
  anyOf: { linked: false, wrap: (inner: string) => `{"anyOf":[${inner}]}` },
} as const;
type Shape = keyof typeof shapes;

/** A document whose schema `A0` nests `links` times in `shape`, used by a GET's answer and a POST's body. */
function deepDocument(shape: Shape, links: number): string {
  const { linked, wrap } = shapes[shape];
  const schemas: string[] = [];
  if (linked) {
    for (let index = 0; index < links; index += 1)
      schemas.push(`"A${index}":${wrap(`{"$ref":"#/components/schemas/A${index + 1}"}`)}`);
    schemas.push(`"A${links}":${leaf}`);
  } else {
    let schema = leaf;
    for (let index = 0; index < links; index += 1) schema = wrap(schema);
    schemas.push(`"A0":${schema}`);
  }
  const body = '{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A0"}}}}';
  return `{"openapi":"3.1.0","info":{"title":"Deep","version":"1"},"paths":{"/things":{
    "get":{"responses":{"200":{"description":"ok",${body.slice(1, -1)}}}},
    "post":{"requestBody":${body.replace('{"content"', '{"required":true,"content"')},"responses":{"201":{"description":"made",${body.slice(1, -1)}}}}}},
    "components":{"schemas":{${schemas.join(',')}}}}`;
}

/** The most links of `shape` a document may have: its deepest schema exactly at the limit. */
function linksAtTheLimit(shape: Shape): number {
  let links = 1;
  while (depthOf(shape, links + 1) <= maxSchemaDepth) links += 1;
  return links;
}

function depthOf(shape: Shape, links: number): number {
  return deepestSchema(parseSpecText(deepDocument(shape, links)))?.depth ?? 0;
}

/** A value of `shape` nested `links` times, valid (or, with `name` a number, invalid at the bottom). */
function deepValue(shape: Shape, links: number, name: unknown = 'rex'): unknown {
  let value: unknown = { name };
  if (shape === 'required property' || shape === 'properties')
    for (let index = 0; index < links; index += 1) value = { x: value };
  if (shape === 'items') for (let index = 0; index < links; index += 1) value = [value];
  return value;
}

/** The value at the bottom of a generated answer: through every `x` and first item. */
function bottomOf(value: unknown): unknown {
  let current = value;
  for (;;) {
    if (Array.isArray(current)) current = current[0];
    else if (current !== null && typeof current === 'object' && 'x' in current) current = current.x;
    else return current;
  }
}

const send = (app: ReturnType<typeof createMockApp>, method: string, body?: unknown) =>
  app.handle({
    method,
    url: '/things',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : new TextEncoder().encode(JSON.stringify(body)),
    clientAddress: '10.0.0.9',
  });

const refusal = new RegExp(
  `^Failed to compile spec: the schema at #/components/schemas/A0 nests more than ${maxSchemaDepth} levels deep \\(through \\$ref, properties, items, allOf and the like\\): no real API nests so deep`,
);

describe('a document nested up to the limit is served: bodies validated, answers generated', () => {
  it.each(Object.keys(shapes) as Shape[])('%s, its deepest schema at the limit', async (shape) => {
    const links = linksAtTheLimit(shape);
    // A link of two levels (a schema and its reference) may stop one short of the limit.
    expect(depthOf(shape, links)).toBeGreaterThanOrEqual(maxSchemaDepth - 1);
    const app = createMockApp({ spec: parseSpecText(deepDocument(shape, links)) });
    try {
      const got = await send(app, 'GET');
      expect([got.status, got.body?.slice(0, 200)]).toEqual([200, expect.any(String)]);
      // Generated all the way down: the required name at the bottom, never a null or an empty object.
      expect(bottomOf(JSON.parse(got.body!))).toEqual({ name: expect.any(String) });
      const made = await send(app, 'POST', deepValue(shape, links));
      expect([made.status, made.body?.slice(0, 200)]).toEqual([201, expect.any(String)]);
      const refused = await send(app, 'POST', deepValue(shape, links, 5));
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body!).message).toMatch(/^Invalid request body: .*expected string, received number/);
    } finally {
      app.close();
    }
  });

  it('one level more is refused: the limit is where it says', () => {
    const links = linksAtTheLimit('items') + 1;
    // A0 itself is at the limit; the operation's schema that refers to it is one level deeper.
    expect(() => createMockApp({ spec: parseSpecText(deepDocument('items', links)) })).toThrow(
      `Failed to compile spec: the schema at #/paths/~1things/post/responses/201/content/application~1json/schema nests more than ${maxSchemaDepth} levels deep`,
    );
  });
});

describe('a document nested past the limit is refused at start, naming the schema and the limit', () => {
  it('a $ref chain of 320 links holding allOf (the issue: 500 at every request before)', () => {
    expect(() => createMockApp({ spec: parseSpecText(deepDocument('allOf of a $ref', 320)) })).toThrow(refusal);
  });

  it.each([
    ['ref', 320],
    ['ref', 1_000],
    ['required property', 1_000],
    ['properties', 1_000],
    ['items', 5_000],
    ['anyOf', 5_000],
    ['ref', 5_000],
  ] as [Shape, number][])('%s, %i links: one line, no stack overflow', (shape, links) => {
    let thrown: unknown;
    try {
      createMockApp({ spec: parseSpecText(deepDocument(shape, links)) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(RangeError);
    expect((thrown as Error).message).toMatch(refusal);
    expect((thrown as Error).message).not.toContain('\n');
  });
});

describe('the command line', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'petstore-depth-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** The run exited 2 with one line on stderr matching `line`, and nothing else. */
  function expectRefusal(run: SpecRun, line: RegExp): void {
    if (run.outcome === 'listening') void run.stop();
    expect(run.outcome, JSON.stringify(run).slice(0, 2_000)).toBe('exited');
    if (run.outcome !== 'exited') return;
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n'), run.stderr.slice(0, 2_000)).toEqual([expect.stringMatching(line)]);
  }

  it('refuses a $ref chain of 320 links in one line, exit 2', async () => {
    const file = join(folder, 'chain.json');
    await writeFile(file, deepDocument('ref', 320));
    expectRefusal(
      await runMockCli(['--spec', file], 30_000),
      new RegExp(`^petstore-mock: ${refusal.source.slice(1)}.*; flatten the nesting$`),
    );
  });

  /** A chain of files, each schema an object whose property refers to the next file. */
  async function fileChain(name: string, files: number): Promise<string> {
    await mkdir(join(folder, name));
    for (let index = 0; index < files; index += 1)
      await writeFile(
        join(folder, name, `s${index}.json`),
        `{"type":"object","properties":{"next":{"$ref":"./s${index + 1}.json"}}}`,
      );
    await writeFile(join(folder, name, `s${files}.json`), leaf);
    const entry = join(folder, name, 'api.yaml');
    await writeFile(
      entry,
      `openapi: 3.1.0\ninfo: {title: Files, version: '1'}\npaths:\n  /things: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: './s0.json'}}}}}}}\n`,
    );
    return entry;
  }

  it('serves a chain of 60 referenced files, and refuses one of 400 in one line', async () => {
    const served = await runMockCli(['--spec', await fileChain('served', 60)], 30_000);
    expect(served.outcome, JSON.stringify(served).slice(0, 2_000)).toBe('listening');
    if (served.outcome === 'listening') {
      try {
        const answer = await fetch(`${served.origin}/things`);
        expect(answer.status).toBe(200);
        await answer.json();
      } finally {
        await served.stop();
      }
    }
    expectRefusal(
      await runMockCli(['--spec', await fileChain('refused', 400)], 30_000),
      /^petstore-mock: Failed to compile spec: the schema at #\/\S+ nests more than 200 levels deep \(/,
    );
  });
});

describe('a schema that still cannot be read at request time', () => {
  // refuseDeepSchemas keeps every document's schemas within what compiles; should one still overflow the stack
  // (a lazy compile, a walk), the answer says why, in the document's error shape: never an unexplained 500.
  const document = `openapi: 3.1.0
info: {title: Errors, version: '1'}
paths:
  /things:
    post:
      requestBody: {content: {application/json: {schema: {type: object}}}}
      responses:
        '201': {description: made}
        default:
          description: problem
          content:
            application/problem+json:
              schema:
                type: object
                required: [title, status, detail]
                properties: {title: {type: string}, status: {type: integer}, detail: {type: string}}
`;

  it.each([
    [
      'a stack overflow',
      new RangeError('Maximum call stack size exceeded'),
      /a schema nests too deeply to read \(the stack ran out\)/,
    ],
    [
      'a schema that cannot be compiled',
      new SpecError(
        'Failed to compile spec: the schema of the request body cannot be compiled (it nests too deeply to compile: the stack ran out)',
      ),
      /: Failed to compile spec: the schema of the request body cannot be compiled \(it nests too deeply/,
    ],
  ])('%s is a 500 that says so', async (_case, thrown, detail) => {
    const spec = compileSpec(parseSpecText(document));
    const body = spec.definition.operations.find((operation) => operation.method === 'POST')!.requestBody!;
    const throwing = () => {
      throw thrown;
    };
    Object.defineProperty(body, 'validator', { value: { isValid: throwing, safeParse: throwing } });
    const app = createMockApp({ spec });
    try {
      const answer = await send(app, 'POST', { name: 'rex' });
      expect([answer.status, answer.headers['Content-Type']]).toEqual([500, 'application/problem+json']);
      const problem = JSON.parse(answer.body!) as { status: number; detail: string };
      expect(problem.status).toBe(500);
      expect(problem.detail).toMatch(/^The mock cannot serve this operation of the document/);
      expect(problem.detail).toMatch(detail);
    } finally {
      app.close();
    }
  });
});
