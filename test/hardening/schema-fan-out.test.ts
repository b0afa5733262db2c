import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { maxSameValueChecks, refuseSameValueFanOut } from '../../spec/schema-fan-out.js';
import { runMockWithSpec } from './support/spec-cli.js';
import { anyOfFanOutSpec } from './support/spec-fixtures.js';

// Issue 40 row 16: ten levels of ten shared `anyOf` branches check one value 10^9 times along every
// path. Since 044c1a1 (fake data checked and drawn again until valid) every GET of it took 13-60 s
// (it answered in 34 ms before), and in every version a value matching no branch ran the heap out
// (the process died). Now such a schema is refused at start, counted in the size of the document.

describe('a schema that checks one value along too many paths (row 16)', () => {
  it('is refused at start in one line, naming where it is', async () => {
    const run = await runMockWithSpec(anyOfFanOutSpec(10, 10), 20_000);
    if (run.outcome === 'listening') await run.stop();
    expect(run.outcome, JSON.stringify(run).slice(0, 1_000)).toBe('exited');
    if (run.outcome !== 'exited') return;
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^petstore-mock: Failed to compile spec: the schema checks one value against more than 100000 subschemas \(.*\): validating a request would take minutes; flatten the nesting at #\/components\/schemas\/A\d_\d\n$/,
    );
  });

  it('counts paths in the size of the document: 10^30 paths cost as few steps as 10^6', () => {
    // A walk along every path would never end; the count reads each schema's edges once.
    for (const levels of [7, 31]) {
      const nodes = Array.from({ length: levels * 10 }, () => ({}));
      const edges = new Map<object, object[]>(
        nodes.map((node, index) => [
          node,
          index >= (levels - 1) * 10
            ? []
            : nodes.slice((Math.floor(index / 10) + 1) * 10, (Math.floor(index / 10) + 2) * 10),
        ]),
      );
      let reads = 0;
      const counted = new Map(edges);
      counted.get = (key) => {
        reads += 1;
        return edges.get(key);
      };
      const audited = new Map(nodes.map((node, index) => [node, `/s${index}`]));
      expect(() =>
        refuseSameValueFanOut(audited, counted, (pointer, problem) => {
          throw new Error(`${problem} at ${pointer}`);
        }),
      ).toThrow(/more than 100000 subschemas/);
      expect(reads, `${levels} levels`).toBeLessThanOrEqual(2 * nodes.length * 11);
    }
    expect(() => compileSpecDefinition(anyOfFanOutSpec(31, 10))).toThrow(/more than 100000 subschemas/);
  });

  it('serves a fan-out under the bound, and answers a value matching no branch 400', () => {
    // 4 levels of 10: 1,111 checks of one value.
    const spec = compileSpecDefinition(anyOfFanOutSpec(4, 10));
    const body = spec.operations.find((operation) => operation.method === 'POST')!.requestBody!.validator!;
    expect(body.safeParse('short').success).toBe(true);
    expect(body.safeParse(5).success).toBe(false);
  });

  it('leaves every document of the corpus far below the bound', async () => {
    const folder = join(import.meta.dirname, '..', 'fixtures', 'specs');
    const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter(
      (name) => /\.(ya?ml|json)$/.test(name) && statSync(join(folder, name)).isFile(),
    );
    let compiled = 0;
    for (const name of files) {
      const document = await readSpecFile(join(folder, name)).catch(() => undefined);
      if (document?.paths === undefined) continue;
      expect(() => compileSpecDefinition(document), name).not.toThrow(/subschemas/);
      compiled += 1;
    }
    expect(compiled).toBeGreaterThan(10);
    expect(maxSameValueChecks).toBe(100_000);
  });
});
