#!/usr/bin/env node
/**
 * `npx tsx bench/redis-store-bench.ts`: how far one Redis goes for the state store. Starts its own
 * redis-server on 127.0.0.1 (persistence off), then measures, each for a bounded time:
 * - the round trip: sequential PING, and sequential `hit`s (one request's cost on the hot path);
 * - throughput of `hit` with 1 and 2 connections in one process, and with 2 processes (2 replicas);
 * - the memory store's `hit` for comparison.
 * Loopback only; every process it starts, it stops. Figures go in docs/decisions/010-state-store.md.
 */
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { parseMockConfig } from '../src/core/config/mock-config.js';
import { createMemoryStore } from '../src/core/state/memory-store.js';
import type { StateStore } from '../src/core/state/state-store.js';
import { storeOptionsFromConfig } from '../src/core/state/store-options.js';
import { connectRedisStore } from '../src/server/redis-store.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { integerOption, optionsOrExit, parseBenchArgs, UsageError } from './lib/options.js';

const help = `npx tsx bench/redis-store-bench.ts [options]

How far one Redis goes for the state store. Starts its own redis-server on 127.0.0.1 (persistence
off), then measures, each for a bounded time: the round trip (sequential PING, and sequential hits:
one request's cost on the hot path); the throughput of hit with 1 and 2 connections in one process,
and with 2 processes (2 replicas); the memory store's hit for comparison. Loopback only; every
process it starts, it stops.

Options:
  --seconds S      Seconds of each throughput run (default 3, from 0.5 to 30)
  --inflight N     Hits in flight per connection (default 64, from 1 to 1024)
  --worker URL     Internal: run as one replica against the Redis at URL and print its figures
                   (the bench starts 2 of these)
  --prefix TEXT    Internal: the key prefix of a --worker (default bench:)
  --help           Show this help
`;

/** --seconds: a number (decimals allowed) from 0.5 to 30; 3 when absent. */
function secondsOption(text: string | undefined): number {
  if (text === undefined) return 3;
  if (!/^\d+(\.\d+)?$/.test(text) || Number(text) < 0.5 || Number(text) > 30)
    throw new UsageError(`--seconds must be a number from 0.5 to 30, got "${text}"`);
  return Number(text);
}

const { values, seconds, inflight } = optionsOrExit(
  { script: 'redis-store-bench', helpCommand: 'npx tsx bench/redis-store-bench.ts --help', help },
  () => {
    const parsed = parseBenchArgs(process.argv.slice(2), {
      seconds: { type: 'string' },
      inflight: { type: 'string' },
      worker: { type: 'string' },
      prefix: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (parsed.help) return 'help';
    return {
      values: { worker: parsed.worker, prefix: parsed.prefix },
      seconds: secondsOption(parsed.seconds),
      inflight: integerOption(parsed.inflight, '--inflight', 64, 1, 1_024),
    };
  },
);
const options = storeOptionsFromConfig(
  parseMockConfig({ anonymous: { perMinute: 100_000_000, perDay: 100_000_000 }, ban: { enabled: false } }),
  [{ name: 'dog' }],
);
const baseTimeMs = Date.UTC(2026, 0, 1);

/** Keeps `inflight` hits in flight on `store` for `ms`; returns how many completed. */
async function drive(store: StateStore, ms: number, clients: number): Promise<number> {
  const deadline = performance.now() + ms;
  let done = 0;
  const runLane = async (lane: number) => {
    let sequence = 0;
    while (performance.now() < deadline) {
      await store.hit('default', { baseTimeMs, clientAddress: `10.0.${lane % 250}.${sequence++ % clients}` });
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: inflight }, (_, lane) => runLane(lane)));
  return done;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function sequentialLatency(run: () => Promise<unknown>, count: number) {
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: percentile(samples, 50), p99Ms: percentile(samples, 99) };
}

async function worker(url: string, prefix: string) {
  const store = await connectRedisStore({ url, prefix }, options);
  await drive(store, 300, 100);
  const started = performance.now();
  const done = await drive(store, seconds * 1000, 100);
  console.log(JSON.stringify({ done, ms: performance.now() - started }));
  await store.close();
}

async function replicas(url: string, prefix: string, count: number): Promise<number> {
  const self = fileURLToPath(import.meta.url);
  const outputs = await Promise.all(
    Array.from({ length: count }, () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          self,
          '--worker',
          url,
          '--prefix',
          prefix,
          '--seconds',
          String(seconds),
          '--inflight',
          String(inflight),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
      return new Promise<{ done: number; ms: number }>((resolve, reject) =>
        child.once('exit', (code) => {
          clearTimeout(timer);
          if (code === 0) resolve(JSON.parse(out.trim().split('\n').at(-1)!));
          else reject(new Error(`Failed to run a bench replica: exit ${code}`));
        }),
      );
    }),
  );
  return outputs.reduce((total, { done, ms }) => total + done / (ms / 1000), 0);
}

async function main() {
  if (values.worker) return worker(values.worker, values.prefix ?? 'bench:');
  const redis = await startRedisServer();
  const stores: StateStore[] = [];
  try {
    const raw = createClient({ url: redis.url });
    raw.on('error', () => {});
    await raw.connect();
    const ping = await sequentialLatency(() => raw.ping(), 2_000);
    raw.destroy();

    const one = await connectRedisStore({ url: redis.url, prefix: 'bench1:' }, options);
    stores.push(one);
    const hit = await sequentialLatency(() => one.hit('default', { baseTimeMs, clientAddress: '10.0.0.1' }), 2_000);
    await drive(one, 500, 100);
    const started1 = performance.now();
    const cpu1 = process.cpuUsage();
    const done1 = await drive(one, seconds * 1000, 100);
    const oneConnection = done1 / ((performance.now() - started1) / 1000);
    const cpuUsed1 = process.cpuUsage(cpu1);
    const nodeMicrosPerHit = (cpuUsed1.user + cpuUsed1.system) / done1;

    const two = [one, await connectRedisStore({ url: redis.url, prefix: 'bench1:' }, options)];
    stores.push(two[1]!);
    const started2 = performance.now();
    const done2 = (await Promise.all(two.map((store) => drive(store, seconds * 1000, 100)))).reduce((a, b) => a + b, 0);
    const twoConnections = done2 / ((performance.now() - started2) / 1000);

    const twoReplicas = await replicas(redis.url, 'bench2:', 2);

    const statsClient = createClient({ url: redis.url });
    statsClient.on('error', () => {});
    await statsClient.connect();
    const evalsha = /cmdstat_evalsha:calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/.exec(
      await statsClient.info('commandstats'),
    );
    statsClient.destroy();
    const scriptMicros = evalsha ? Number(evalsha[3]) : Number.NaN;

    const memory = createMemoryStore(options);
    await drive(memory, 300, 100);
    const startedMemory = performance.now();
    const doneMemory = await drive(memory, seconds * 1000, 100);
    const memoryRate = doneMemory / ((performance.now() - startedMemory) / 1000);
    const memoryHit = await sequentialLatency(
      () => memory.hit('default', { baseTimeMs, clientAddress: '10.0.0.1' }),
      20_000,
    );

    const rows = [
      ['PING round trip (sequential)', `median ${ping.medianMs.toFixed(3)} ms, p99 ${ping.p99Ms.toFixed(3)} ms`],
      ['Redis hit (sequential, one at a time)', `median ${hit.medianMs.toFixed(3)} ms, p99 ${hit.p99Ms.toFixed(3)} ms`],
      [`Redis hits/s, 1 connection, ${inflight} in flight`, Math.round(oneConnection).toLocaleString('en-US')],
      ['Node CPU per Redis hit (client side, 1 connection)', `${nodeMicrosPerHit.toFixed(1)} µs`],
      [`Redis hits/s, 2 connections in one process`, Math.round(twoConnections).toLocaleString('en-US')],
      [`Redis hits/s, 2 processes (replicas), 1 connection each`, Math.round(twoReplicas).toLocaleString('en-US')],
      [
        'Redis CPU per hit script (INFO commandstats)',
        `${scriptMicros.toFixed(2)} µs: one Redis core tops out near ${Math.round(1e6 / scriptMicros).toLocaleString('en-US')} hits/s`,
      ],
      ['Memory store hits/s (same driver)', Math.round(memoryRate).toLocaleString('en-US')],
      ['Memory hit (sequential)', `median ${(memoryHit.medianMs * 1000).toFixed(1)} µs`],
    ];
    const width = Math.max(...rows.map(([name]) => name!.length));
    console.log(
      `redis-store bench: ${seconds} s per run, loopback, redis-server with persistence off; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)}`,
    );
    for (const [name, value] of rows) console.log(`${name!.padEnd(width)}  ${value}`);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await redis.stop();
  }
}

await main();
