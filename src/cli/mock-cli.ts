#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createConsoleLogger } from '../server/console-logger.js';
import { readConfigFile, startMockServer } from '../server/start-server.js';

const help = `petstore-mock: a stateful mock of the Petstore API (auth, validation, rate limits, bans).

Usage: petstore-mock [options]        (npm start -- [options])

Options:
  --port N                 Port to listen on (default 4010, or $PORT; 0 picks a free port)
  --host HOST              Address to bind (default 127.0.0.1)
  --spec FILE              OpenAPI 3.1 spec to serve (default: the kit's spec/petstore.openapi.yaml)
  --seed N                 Seed of the fake data; same seed, same data (default 1)
  --config FILE            YAML config: plans, keys, ban policy, limits (see README "Configuration")
  --control-token TOKEN    Require X-Mock-Control-Token on /__mock/* controls
  --allow-remote-control   Serve /__mock/* to non-loopback clients too
  --allowed-hosts NAME     Also serve /__mock/* under Host NAME (repeatable; .NAME adds subdomains; all: any)
  --verbose                Log every request (API keys masked)
  --quiet                  Print nothing but errors
  --help                   Show this help
  --version                Show the version

The API is served under /v1 (http://127.0.0.1:4010/v1). Controls, never rate limited:
  POST /__mock/reset                      back to the seeded state
  GET  /__mock/clock, POST /__mock/clock  read / advance the virtual clock {"advanceSeconds": 60}
  GET  /__mock/keys,  POST /__mock/keys   list / add keys {"key": "k", "plan": "pro"}
  GET  /__mock/requests                   recent requests (keys masked)
  GET  /__mock/health                     readiness
Per request: "Prefer: code=429" forces a declared status; "Prefer: example=NAME" picks an example.
`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        spec: { type: 'string' },
        seed: { type: 'string' },
        config: { type: 'string' },
        'control-token': { type: 'string' },
        'allow-remote-control': { type: 'boolean' },
        'allowed-hosts': { type: 'string', multiple: true },
        verbose: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`petstore-mock: ${(error as Error).message}\nRun petstore-mock --help for the options.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(help);
    return 0;
  }
  if (values.version) {
    process.stdout.write('petstore-mock 0.1.0 (Petstore interface 1.0.0)\n');
    return 0;
  }
  const port = parseInteger(values.port ?? (process.env.PORT?.trim() || '4010'), values.port === undefined && process.env.PORT?.trim() ? 'PORT' : '--port', 0, 65_535);
  const seed = parseInteger(values.seed ?? '1', '--seed', 0, 2 ** 31 - 1);
  if (typeof port === 'string' || typeof seed === 'string') {
    process.stderr.write(`petstore-mock: ${typeof port === 'string' ? port : seed}\n`);
    return 2;
  }
  const logger = createConsoleLogger({ verbose: values.verbose, quiet: values.quiet });

  let mock;
  try {
    const fileConfig = values.config ? await readConfigFile(values.config) : undefined;
    const config = {
      ...(fileConfig ?? {}),
      ...(values['control-token'] ? { controlToken: values['control-token'] } : {}),
      ...(values['allow-remote-control'] ? { allowRemoteControl: true } : {}),
      ...(values['allowed-hosts'] ? { allowedHosts: allowedHostsOption(values['allowed-hosts'], fileConfig?.allowedHosts) } : {}),
    };
    mock = await startMockServer({ port, host: values.host ?? '127.0.0.1', specPath: values.spec, config: fileConfig ? { ...fileConfig, ...config } : config, seed, logger });
  } catch (error) {
    process.stderr.write(`petstore-mock: ${(error as Error).message}\n`);
    return 2;
  }

  logger.info(`Petstore mock (${mock.app.spec.title} ${mock.app.spec.version}) listening on ${mock.baseUrl}`);
  logger.info('API keys (send Authorization: Bearer <key>):');
  for (const entry of mock.app.startupKeys) {
    logger.info(`  ${entry.display.padEnd(18)} ${entry.plan.padEnd(11)} ${entry.limits.perMinute}/min, ${entry.limits.perDay}/day`);
  }
  logger.info(`Controls at ${mock.origin}/__mock (reset, clock, keys, requests). Ctrl+C stops.`);

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info(`${signal}: finishing in-flight requests and stopping`);
      void mock.close().then(resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

/** `--allowed-hosts a,b --allowed-hosts c` adds to the config's list; `all` anywhere switches the check off. */
function allowedHostsOption(flags: string[], fromConfig: 'all' | string[] | undefined): 'all' | string[] {
  const names = flags.flatMap((flag) => flag.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  if (fromConfig === 'all' || names.includes('all')) return 'all';
  return [...(fromConfig ?? []), ...names];
}

function parseInteger(text: string, flag: string, min: number, max: number): number | string {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) return `${flag} must be an integer from ${min} to ${max}, got "${text}"`;
  return Number(text);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`petstore-mock: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
