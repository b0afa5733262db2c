#!/usr/bin/env node
/**
 * `npm run bench:proxy [-- --requests N --rounds N]`: the latency the judging proxy adds to one
 * request, against a direct connection to the same upstream (target: at most 1 ms at p50 on the
 * 2-core machine). The upstream is bench/bare-server.mjs (no logic, so the difference is the
 * proxy's); the proxy runs as users run it, `petstore-mock proxy` in its own process; the client
 * sends one request at a time on a keep-alive connection, alternating direct and proxied batches so
 * both see the same machine. Loopback only; bounded (default 10 rounds of 300 requests each way).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { integerOption, optionsOrExit, parseBenchArgs } from './lib/options.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const help = `npm run bench:proxy -- [options]

The latency the judging proxy adds to one request (target: at most 1 ms at p50), against a direct
connection to the same upstream, bench/bare-server.mjs. The proxy runs as users run it
(petstore-mock proxy, in its own process, from source via tsx); the client sends one GET at a time on
a keep-alive connection, 500 of each unmeasured to warm up, then alternates direct and proxied
batches so both see the same machine. Loopback only. Exits 1 when the p50 added is over 1 ms.

Options:
  --requests N   Requests per batch, each way (default 300, from 10 to 10000)
  --rounds N     Batches each way (default 10, from 1 to 100)
  --help         Show this help
`;

const { perBatch, rounds } = optionsOrExit(
  { script: 'bench:proxy', helpCommand: 'npm run bench:proxy -- --help', help },
  () => {
    const values = parseBenchArgs(process.argv.slice(2), {
      requests: { type: 'string' },
      rounds: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) return 'help';
    return {
      perBatch: integerOption(values.requests, '--requests', 300, 10, 10_000),
      rounds: integerOption(values.rounds, '--rounds', 10, 1, 100),
    };
  },
);

/** Starts a child and resolves with the first URL it prints that matches `pattern`. */
function startChild(args: string[], pattern: RegExp): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) resolvePromise({ child, url: match[1]! });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`Failed to start ${args.join(' ')} (exit ${code}): ${output}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function once(url: URL): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint();
    const outgoing = request(url, { agent, headers: { authorization: 'Bearer bench-key-0123456789' } }, (response) => {
      response.resume();
      response.on('end', () => resolvePromise(Number(process.hrtime.bigint() - started) / 1e6));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function batch(url: URL, count: number, into: number[]): Promise<void> {
  for (let index = 0; index < count; index += 1) into.push(await once(url));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const bare = await startChild(['bench/bare-server.mjs', '--port', '0', '--case', 'get'], /(http:\/\/127\.0\.0\.1:\d+)/);
const upstreamBase = `${bare.url}/v1`;
const proxy = await startChild(
  ['--import', 'tsx', 'src/cli/mock-cli.ts', 'proxy', upstreamBase, '--port', '0'],
  /listening on (http:\/\/\S+)/,
);
try {
  const direct = new URL(`${upstreamBase}/categories`);
  const proxied = new URL(`${proxy.url}/categories`);
  // Warm both paths (JIT, connections) before measuring.
  await batch(direct, 500, []);
  await batch(proxied, 500, []);
  const times = { direct: [] as number[], proxied: [] as number[] };
  for (let round = 0; round < rounds; round += 1) {
    await batch(direct, perBatch, times.direct);
    await batch(proxied, perBatch, times.proxied);
  }
  const summary = Object.fromEntries(
    Object.entries(times).map(([name, list]) => {
      const sorted = [...list].sort((a, b) => a - b);
      return [name, { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) }];
    }),
  ) as Record<'direct' | 'proxied', { p50: number; p90: number; p99: number }>;
  const added = summary.proxied.p50 - summary.direct.p50;
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  console.log(`Judging proxy overhead, ${rounds * perBatch} sequential GETs each way on one keep-alive connection:`);
  for (const name of ['direct', 'proxied'] as const)
    console.log(
      `  ${name.padEnd(8)} p50 ${ms(summary[name].p50)}  p90 ${ms(summary[name].p90)}  p99 ${ms(summary[name].p99)}`,
    );
  console.log(`  added at p50: ${ms(added)} (target: at most 1 ms) ${added <= 1 ? 'OK' : 'OVER TARGET'}`);
  process.exitCode = added <= 1 ? 0 : 1;
} finally {
  agent.destroy();
  proxy.child.kill('SIGTERM');
  bare.child.kill('SIGTERM');
}
