/**
 * The body of `bench/replay-bench.ts` (bundled, then run with plain node): how long `petstore-mock replay` takes for
 * N recorded requests (default 100,000; the target is under 5 s on the 2-core CI machine): the
 * JSON-lines export is generated (a mix of clients, plans, statuses, a burst into a ban, anonymous
 * traffic, the deprecated operation), then parsed, replayed against a fresh in-memory mock, reported
 * and drawn. Prints each phase and the total; the best run counts (the others show the spread).
 */
import { performance } from 'node:perf_hooks';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { readSpecFile } from '../../spec/load-spec.js';
import { replayAgainstMockApp } from '../../src/cli/replay-command.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { compileSpec } from '../../src/core/spec/compiled-spec.js';
import { labReportJunit } from '../../src/lab/lab-report.js';
import { parseReplayInput, toExportLine } from '../../src/lab/replay-input.js';
import { renderTimelineSvg } from '../../src/lab/timeline-svg.js';
import { integerOption, optionsOrExit, parseBenchArgs } from './options.js';

const help = `npm run bench:replay -- [options]

How long petstore-mock replay takes for N recorded requests (target: under 5 s for 100,000 on the
2-core CI machine). A JSON-lines export is generated once (a mix of clients, plans, statuses, a
burst into a ban, anonymous traffic, the deprecated operation); each run parses it, replays it
against a fresh in-memory mock with the default config, and renders the report, JUnit and timeline
SVG. Prints each run's phases and total; the best run counts (the others show the spread).

Options:
  --requests N   Recorded requests to replay (default 100000)
  --runs N       Runs over the same export (default 3)
  --spec FILE    The OpenAPI document replayed against (default: spec/petstore.openapi.yaml; the
                 generated traffic expects its operations)
  --help         Show this help
`;

interface Options {
  total: number;
  runs: number;
  spec?: string;
}

function parseOptions(argv: string[]): Options | 'help' {
  const values = parseBenchArgs(argv, {
    requests: { type: 'string' },
    runs: { type: 'string' },
    spec: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  return {
    // The export is one string of about 290 bytes per request: past about 1.8 million, longer than V8 allows.
    total: integerOption(values.requests, '--requests', 100_000, 1, 1_000_000),
    runs: integerOption(values.runs, '--runs', 3, 1, 100),
    ...(values.spec === undefined ? {} : { spec: values.spec }),
  };
}

const options = optionsOrExit({ script: 'bench:replay', helpCommand: 'npm run bench:replay -- --help', help }, () =>
  parseOptions(process.argv.slice(2)),
);
const { total, runs } = options;

const config = parseMockConfig({});
const plans = config.plans;
const clients = [
  ...Array.from({ length: 40 }, (_, index) => ({
    key: `bench-key-${index}`,
    plan: (['free', 'pro', 'business'] as const)[index % 3]!,
  })),
];

/** Deterministic traffic: a request every 40 ms on average, round-robin with bursts. */
function generate(count: number): string {
  const start = Date.UTC(2026, 5, 1, 9);
  const lines: string[] = [];
  const digests = clients.map((client) => bytesToHex(sha256(new TextEncoder().encode(client.key))));
  let time = start;
  for (let index = 0; index < count; index += 1) {
    time += index % 1000 < 200 ? 5 : 40;
    const slot = index % 50;
    const common = { timeMs: time, status: 200, code: null, prefer: null, contentType: null, body: null };
    if (slot >= 40) {
      lines.push(
        toExportLine({
          ...common,
          method: 'GET',
          url: '/v1/store/orders',
          clientAddress: `10.0.${slot}.1`,
          auth: 'none',
          plan: 'anonymous',
          limits: config.anonymous,
          operationId: 'listStoreOrders',
        }),
      );
      continue;
    }
    const client = clients[slot]!;
    const kind = index % 23;
    const base = {
      ...common,
      keyDigest: digests[slot]!,
      auth: 'key' as const,
      plan: client.plan,
      limits: plans[client.plan]!,
    };
    if (kind === 0) lines.push(toExportLine({ ...base, method: 'GET', url: '/v1/pets/3', operationId: 'getPetById' }));
    else if (kind === 1)
      lines.push(
        toExportLine({
          ...base,
          method: 'POST',
          url: '/v1/categories',
          operationId: 'createCategory',
          contentType: 'application/json',
          body: `{"name":"category ${index}"}`,
        }),
      );
    else if (kind === 2)
      lines.push(
        toExportLine({
          ...base,
          method: 'GET',
          url: '/v1/categories',
          operationId: 'listCategories',
          prefer: 'code=429',
        }),
      );
    else lines.push(toExportLine({ ...base, method: 'GET', url: '/v1/categories', operationId: 'listCategories' }));
  }
  return `${lines.join('\n')}\n`;
}

const text = generate(total);
const spec = compileSpec(await readSpecFile(options.spec));
process.stdout.write(
  `replay-bench: ${total.toLocaleString('en')} recorded requests (${(text.length / 1e6).toFixed(1)} MB of JSON lines), ${runs} runs\n`,
);
let best = Number.POSITIVE_INFINITY;
for (let run = 1; run <= runs; run += 1) {
  const t0 = performance.now();
  const requests = parseReplayInput(text, { plans });
  const t1 = performance.now();
  const result = await replayAgainstMockApp(requests, config, spec, { title: 'bench' });
  const t2 = performance.now();
  const report = JSON.stringify(result.report);
  const junit = labReportJunit(result.report);
  const svg = renderTimelineSvg(result.timeline);
  const t3 = performance.now();
  const totalMs = t3 - t0;
  best = Math.min(best, totalMs);
  process.stdout.write(
    `run ${run}: parse ${(t1 - t0).toFixed(0)} ms, replay ${(t2 - t1).toFixed(0)} ms, report+junit+svg ${(t3 - t2).toFixed(0)} ms ` +
      `(${(report.length / 1024).toFixed(0)} KiB + ${(junit.length / 1024).toFixed(0)} KiB + ${(svg.length / 1024).toFixed(0)} KiB): total ${(totalMs / 1000).toFixed(2)} s; ` +
      `statuses ${JSON.stringify(result.byStatus)}\n`,
  );
}
process.stdout.write(
  `replay of ${total.toLocaleString('en')} requests: best ${(best / 1000).toFixed(2)} s (target < 5 s)\n`,
);
