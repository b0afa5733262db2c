#!/usr/bin/env node
/**
 * `npm run bench:redis`: the mock with its state in Redis (`--store`), with 1 and 2 replicas, beside
 * the same mock in memory. Starts its own redis-server on 127.0.0.1 (persistence off) and the built
 * bin (`npm run build` first; else the source via tsx), loads each replica with its own autocannon
 * process (GET /v1/categories and POST /v1/categories with the Enterprise key, so nothing is
 * refused), and sums the replicas. Loopback only; every process it starts, it stops.
 *
 * The limit it shows: one Redis round trip per request (one Lua script), so a replica's throughput
 * is bounded by its round trips in flight and Redis's single core, not by the mock's CPU alone.
 */
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockProcess, startMockProcess } from '../test/support/mock-process.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { runLoad } from './lib/load-generator.js';
import { integerOption, optionsOrExit, parseBenchArgs } from './lib/options.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const help = `npm run bench:redis -- [options]

Throughput of the mock with its state in Redis (--store), with 1 and 2 replicas, beside the same
mock in memory. Starts its own redis-server on 127.0.0.1 (persistence off) and the built bin
(npm run build first; else the source via tsx), loads each replica with its own autocannon process
(GET and POST /v1/categories with the Enterprise key, so nothing is refused; a 1 s warm-up, then
the measured run) and sums the replicas. Loopback only; every process it starts, it stops.

Options:
  --duration S      Seconds of each measured run (default 5, from 1 to 60)
  --connections N   autocannon connections per replica (default 20, from 1 to 500)
  --help            Show this help
`;

const { durationSeconds, connections } = optionsOrExit(
  { script: 'bench:redis', helpCommand: 'npm run bench:redis -- --help', help },
  () => {
    const values = parseBenchArgs(process.argv.slice(2), {
      duration: { type: 'string' },
      connections: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) return 'help';
    return {
      durationSeconds: integerOption(values.duration, '--duration', 5, 1, 60),
      connections: integerOption(values.connections, '--connections', 20, 1, 500),
    };
  },
);
const dist = join(root, 'dist/bin/petstore-mock.js');
const launch = existsSync(dist) ? { bin: dist } : {};

const cases = [
  {
    label: 'GET 200',
    request: { method: 'GET', path: '/v1/categories', headers: { authorization: 'Bearer demo-enterprise' } },
  },
  {
    label: 'POST 201',
    request: {
      method: 'POST',
      path: '/v1/categories',
      headers: { authorization: 'Bearer demo-enterprise', 'content-type': 'application/json' },
      body: '{"name":"bench","description":"x"}',
    },
  },
] as const;

console.log(
  `petstore-kit redis-mode bench: node ${process.version}, ${cpus().length} CPU(s), load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
console.log(
  `${durationSeconds} s per run, ${connections} connections per replica, the mock ${existsSync(dist) ? 'from dist' : 'from source (tsx)'}\n`,
);

async function measure(label: string, replicas: MockProcess[]): Promise<void> {
  for (const { label: caseLabel, request } of cases) {
    // Every case starts from the seeded state (a POST run leaves thousands of categories for the next GET to list).
    await fetch(`${replicas[0]!.origin}/__mock/reset`, { method: 'POST' });
    // Warm-up, then the measured run, every replica under load at once.
    await Promise.all(
      replicas.map((replica) =>
        runLoad({ port: Number(new URL(replica.origin).port), request, connections, durationSeconds: 1 }),
      ),
    );
    await fetch(`${replicas[0]!.origin}/__mock/reset`, { method: 'POST' });
    const results = await Promise.all(
      replicas.map((replica) =>
        runLoad({ port: Number(new URL(replica.origin).port), request, connections, durationSeconds }),
      ),
    );
    const total = results.reduce((sum, result) => sum + result.requestsPerSecond, 0);
    const p99 = Math.max(...results.map((result) => result.latencyP99));
    const bad = results.reduce(
      (sum, result) =>
        sum +
        result.errors +
        result.timeouts +
        Object.entries(result.statusCounts)
          .filter(([status]) => !/^2/.test(status))
          .reduce((s, [, n]) => s + n, 0),
      0,
    );
    console.log(
      `  ${label.padEnd(22)} ${caseLabel}: ${Math.round(total).toLocaleString('en-US')} req/s total, p99 ${p99} ms${bad > 0 ? `, ${bad} non-2xx or errors` : ''}`,
    );
  }
}

const memory = await startMockProcess([], 20_000, launch);
try {
  await measure('memory, 1 process', [memory]);
} finally {
  await memory.stop();
}
const redis = await startRedisServer();
try {
  for (const count of [1, 2]) {
    const replicas = await Promise.all(
      Array.from({ length: count }, () => startMockProcess(['--store', redis.url], 20_000, launch)),
    );
    try {
      await measure(`redis, ${count} replica${count === 1 ? '' : 's'}`, replicas);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
    }
  }
} finally {
  await redis.stop();
}
console.log(
  `\nLoad average after: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} (2 shared CPUs: the replicas, Redis and the load generators compete).`,
);
