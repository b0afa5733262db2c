import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Proves the instruction counter (valgrind's callgrind around the mock and the bare server) end to
// end on one case with short runs. Without valgrind it skips with the reason, except under CI=true
// (.ci/run installs it).
const root = fileURLToPath(new URL('../..', import.meta.url));
const hasValgrind = spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasValgrind && process.env.CI === 'true')
  throw new Error(
    'Failed to run the instruction counter test under CI: valgrind is not installed (apt-get install valgrind)',
  );
const workDir = mkdtempSync(join(tmpdir(), 'petstore-instructions-test-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function runCounter(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench/instructions-bench.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    // Each server may take up to 600 s to answer under valgrind on a loaded machine, and a failed count is made once more.
    timeout: 1_500_000,
  });
}

describe.skipIf(!hasValgrind)(
  `the instruction counter${hasValgrind ? '' : ' (skipped: valgrind is not installed; apt-get install valgrind)'}`,
  () => {
    it('counts the instructions per request of the mock and of bare node:http, and judges the ratio', () => {
      const jsonFile = join(workDir, 'figures.json');
      // From source: dist/ may be half-written by the package test running beside this one.
      const run = runCounter([
        '--mock',
        'src',
        '--cases',
        '401',
        '--warmup',
        '300',
        '--requests',
        '200',
        '--connections',
        '4',
        '--json',
        jsonFile,
      ]);
      // A count that failed says why on stdout (`FAILED (...)`), an uncaught error on stderr.
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(
        /GET 401 +mock [\d,]+ \([\d,]+ on helper threads; \+[\d,]+ compiling(; window [23], those before caught V8 compiling)?(; counted again, the first count failed: .*?)?\), bare [\d,]+ \([\d,]+ on helper threads; \+[\d,]+ compiling(; window [23], those before caught V8 compiling)?(; counted again, the first count failed: .*?)?\) instructions per request: \d+\.\d\d x/,
      );
      expect(run.stdout).toMatch(/(MET |MISS) {2}Instructions per request, GET 401/);
      const figures = JSON.parse(readFileSync(jsonFile, 'utf8')) as {
        rows: {
          caseId: string;
          mock: {
            instructionsPerRequest: number;
            compilingPerRequest: number;
            helperThreadsPerRequest: number;
            statusCounts: Record<string, number>;
            counts: number;
          };
          bare: {
            instructionsPerRequest: number;
            compilingPerRequest: number;
            helperThreadsPerRequest: number;
            counts: number;
          };
          ratio: number;
        }[];
      };
      const [row] = figures.rows;
      expect(row!.caseId).toBe('401');
      // A request through node:http alone is tens of thousands of instructions; every counted one was the case's answer.
      expect(row!.bare.instructionsPerRequest).toBeGreaterThan(10_000);
      expect(row!.mock.instructionsPerRequest).toBeGreaterThan(10_000);
      expect(row!.mock.statusCounts).toEqual({ '401': 200 });
      // So short a warm-up leaves V8 compiling in the counted window: its share is found and set apart.
      expect(row!.mock.compilingPerRequest + row!.bare.compilingPerRequest).toBeGreaterThan(0);
      // A window that caught more than 2 % compiling is counted again, three windows at most: one
      // reported with more than that share is the third.
      for (const counted of [row!.mock, row!.bare]) {
        expect([1, 2, 3]).toContain(counted.counts);
        if (counted.compilingPerRequest > 0.02 * (counted.instructionsPerRequest + counted.compilingPerRequest))
          expect(counted.counts).toBe(3);
      }
      // Every thread is counted, the garbage collector's helpers a part of the count, never most of it.
      // Whether they ran at all in a window of 200 requests depends on whether a collection fell in it
      // (about one instruction a request when none did, on Node 20 and 24 alike).
      for (const counted of [row!.mock, row!.bare]) {
        expect(counted.helperThreadsPerRequest).toBeGreaterThanOrEqual(0);
        expect(counted.helperThreadsPerRequest).toBeLessThan(counted.instructionsPerRequest / 2);
      }
      expect(row!.ratio).toBeCloseTo(row!.mock.instructionsPerRequest / row!.bare.instructionsPerRequest, 6);
    }, 1_600_000);
  },
);

describe('the instruction counter without work to do', () => {
  it('refuses a bad option in one line', () => {
    const run = runCounter(['--requests', 'many']);
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')[0]).toBe(
      'bench:instructions: --requests must be an integer from 100 to 1000000, got "many"',
    );
  });
});
