/**
 * The body of `bench/core-bench.ts` (bundled, then run with plain node): for each bench case,
 * `app.respond` in a loop (100 in flight when the store is asynchronous), timed by process CPU time.
 */
import { parse as parseYaml } from 'yaml';
import { readSpecFile } from '../../spec/load-spec.js';
import { parseMockConfig } from '../../src/core/config/mock-config.js';
import { createMockApp } from '../../src/core/mock-app.js';
import type { MockRequest } from '../../src/core/types.js';
import { benchCases, benchConfigYaml, type CaseId, caseIds, exhaustedKey } from './cases.js';
import { integerOption, listOption, optionsOrExit, parseBenchArgs } from './options.js';

const help = `npm run bench:core -- [options]

CPU time of the core alone (app.respond in-process, no HTTP) per request for each case of npm run
bench, with its config (bench/lib/cases.ts) and 100 callers at once (in flight when the store
answers asynchronously). Each case runs on a fresh app: first untimed (the lesser of N and 50,000
requests, to let V8 optimize), then N requests timed by the process's CPU time.

Options:
  --requests N   Requests timed per case (default 200000)
  --cases LIST   Any of ${caseIds.join(',')} (default: all)
  --spec FILE    The OpenAPI document the app serves (default: spec/petstore.openapi.yaml; the
                 cases expect its operations)
  --help         Show this help
`;

interface Options {
  total: number;
  chosen: CaseId[];
  spec?: string;
}

function parseOptions(argv: string[]): Options | 'help' {
  const values = parseBenchArgs(argv, {
    requests: { type: 'string' },
    cases: { type: 'string' },
    spec: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  return {
    total: integerOption(values.requests, '--requests', 200_000, 1, 100_000_000),
    chosen: listOption<CaseId>(values.cases, '--cases', caseIds, caseIds),
    ...(values.spec === undefined ? {} : { spec: values.spec }),
  };
}

const options = optionsOrExit({ script: 'bench:core', helpCommand: 'npm run bench:core -- --help', help }, () =>
  parseOptions(process.argv.slice(2)),
);
const { total, chosen } = options;
const spec = await readSpecFile(options.spec);
const encoder = new TextEncoder();

for (const caseId of chosen) {
  const app = createMockApp({ spec, config: parseMockConfig(parseYaml(benchConfigYaml)) });
  const probe = benchCases[caseId].request('mock');
  const headers: Record<string, string> = { host: '127.0.0.1:4010', 'user-agent': 'bench', ...probe.headers };
  if (probe.body !== undefined) headers['content-length'] = String(probe.body.length);
  // Encoded once: the core never writes to a body, and a TextEncoder per request would be timed as the core's.
  const body = probe.body === undefined ? null : encoder.encode(probe.body);
  const request = (): MockRequest => ({
    method: probe.method,
    url: probe.path,
    headers: { ...headers },
    body,
    clientAddress: '127.0.0.1',
  });
  if (caseId === '429')
    await app.handle({
      method: 'GET',
      url: '/v1/categories',
      headers: { authorization: `Bearer ${exhaustedKey}` },
      body: null,
      clientAddress: '127.0.0.1',
    });
  const check = await app.handle(request());
  if (check.status !== benchCases[caseId].expectedStatus)
    throw new Error(`${caseId}: expected ${benchCases[caseId].expectedStatus}, got ${check.status} ${check.body}`);
  const run = async (count: number) => {
    // 100 in flight, like the HTTP bench's 100 connections.
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next += 1;
        // respond() answers at once with the in-memory store: the cost measured is the core's alone.
        const answer = app.respond(request());
        if (answer instanceof Promise) await answer;
        else if ((next & 63) === 0) await null;
      }
    };
    await Promise.all(Array.from({ length: 100 }, worker));
  };
  await run(Math.min(total, 50_000));
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await run(total);
  const wall = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  const usPerRequest = (cpu.user + cpu.system) / total;
  process.stdout.write(
    `${benchCases[caseId].label.padEnd(9)} ${usPerRequest.toFixed(2).padStart(7)} us CPU/request, ${((total / wall) * 1000).toFixed(0).padStart(8)} req/s in-process (${total.toLocaleString('en')} requests)\n`,
  );
  await app.close();
}
