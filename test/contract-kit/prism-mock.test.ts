import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckStatus } from '../../contract-tests/report/report-model.js';
import { type RunningPrism, startPrism } from '../../contract-tests/runner/prism-process.js';
import { runKit } from './support/run-kit.js';

/**
 * The kit against Prism's mock of our own spec (`prism mock spec/petstore.openapi.yaml`): a
 * server generated from the same document, but stateless, accepting any bearer token and serving
 * fixed examples. Which checks it passes, and why the others fail, is pinned in
 * expectations/prism.json (and the README table); a change fails the build until the file is
 * updated on purpose: UPDATE_CONTRACT_EXPECTATIONS=1 npx vitest run --project contract-kit prism-mock
 */
interface Expectations {
  description: string;
  checks: Record<string, { status: CheckStatus; why: string }>;
}

const expectationsPath = fileURLToPath(new URL('./expectations/prism.json', import.meta.url));
const specPath = fileURLToPath(new URL('../../spec/petstore.openapi.yaml', import.meta.url));

describe("the kit against Prism's mock of our spec", () => {
  let prism: RunningPrism;
  beforeAll(async () => {
    prism = await startPrism({ mode: 'mock', specPath });
  });
  afterAll(async () => {
    await prism?.stop();
  });

  it('passes and fails exactly the checks pinned in expectations/prism.json', async () => {
    // Prism serves the spec's paths without the servers' /v1 prefix.
    const run = await runKit({ baseUrl: prism.url, apiKey: 'any-token', rateLimitKey: 'another-token' });
    const actual = Object.fromEntries(run.report.results.map((result) => [result.id, result.status]));
    const expectations = JSON.parse(await readFile(expectationsPath, 'utf8')) as Expectations;
    if (process.env.UPDATE_CONTRACT_EXPECTATIONS === '1') {
      const checks = Object.fromEntries(
        run.report.results.map((result) => [
          result.id,
          { status: result.status, why: expectations.checks[result.id]?.why ?? result.message ?? '' },
        ]),
      );
      await writeFile(expectationsPath, `${JSON.stringify({ ...expectations, checks }, null, 2)}\n`);
    }
    // Prism versions differ (CI runs the newest Prism that its Node runs): expectations/prism-<major.minor>.json,
    // when present, pins what that version does differently, with the reason.
    const prismVersion = (
      JSON.parse(
        await readFile(
          fileURLToPath(new URL('../../node_modules/@stoplight/prism-cli/package.json', import.meta.url)),
          'utf8',
        ),
      ) as { version: string }
    ).version;
    const versionOverrides = await readFile(
      expectationsPath.replace(/\.json$/, `-${prismVersion.split('.').slice(0, 2).join('.')}.json`),
      'utf8',
    ).then(
      (text) => (JSON.parse(text) as Expectations).checks,
      () => ({}),
    );
    const expected = Object.fromEntries(
      Object.entries({ ...expectations.checks, ...versionOverrides }).map(([id, entry]) => [id, entry.status]),
    );
    expect(actual).toEqual(expected);
    expect(run.exitCode).toBe(1);
  });
});
