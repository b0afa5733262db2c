import { describe, expect, it } from 'vitest';
import { runMockCli } from '../hardening/support/spec-cli.js';
import { isLargeRealSpec, realSpecs, realSpecsFolder } from '../support/real-specs.js';

/**
 * Issue 42 item 4: every document of ../shared/real-specs starts under `petstore-mock --spec FILE`.
 * `npm test` starts the large ones (over 1 MB, or a tree of files) and the ones refused before (DigitalOcean:
 * 2,850 referenced files over a limit of 1,000; Lichess: components.schemas given by a $ref; OpenAI:
 * `optional: true` and draft 2019-09's $recursiveRef; Sonarr: the pattern ^(?!api/).*);
 * `npm run corpus:serve-all` starts all 23 and `npm run bench:corpus` times them.
 */
const sampled = realSpecs().filter((spec) => isLargeRealSpec(spec) || /sonarr/.test(spec.name));

describe.skipIf(sampled.length === 0)(`the large real documents of ${realSpecsFolder} start`, () => {
  it.each(sampled.map((spec) => [spec.name, spec.file] as const))(
    '%s starts and answers',
    { timeout: 120_000 },
    async (_, file) => {
      const run = await runMockCli(['--spec', file], 110_000);
      expect(run.outcome, JSON.stringify(run).slice(0, 1_000)).toBe('listening');
      if (run.outcome !== 'listening') return;
      try {
        const health = await fetch(`${run.origin}/__mock/health`, { signal: AbortSignal.timeout(30_000) });
        expect(health.status).toBe(200);
      } finally {
        await run.stop();
      }
    },
  );
});
