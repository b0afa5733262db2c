import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Debian's `redis-server`, run by the tests themselves: bound to 127.0.0.1 on a free ephemeral port,
 * persistence off, stopped by the test (and, as a last resort, when the test process exits), so no
 * run leaves a server behind. It can be stopped and started again on the same port (outage tests),
 * or frozen with SIGSTOP (a Redis that accepts connections and never answers).
 *
 * Without `redis-server` on the machine the Redis tests skip with the reason, except under CI=true,
 * where they fail: CI must test the Redis store (`.ci/run` installs it).
 *
 * @example
 * const redis = await startRedisServer();
 * const store = await connectRedisStore({ url: redis.url }, options);
 * await redis.restart();
 * await redis.stop();
 */
export interface RedisServerHandle {
  readonly port: number;
  /** `redis://127.0.0.1:PORT/0`. */
  readonly url: string;
  /** Stops it (SIGTERM, then SIGKILL after 2 s); resolves when the process is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (persistence is off). */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing is answered, until `resume()`. */
  pause(): void;
  resume(): void;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  // The watchdogs stop their servers within half a second of this process being gone; this is faster.
  for (const child of running) child.kill('SIGTERM');
});

/**
 * `sh -c` script: $1 is the test process, the rest are redis-server's arguments. Prints the server's pid,
 * then waits until either the server or the test process is gone, and stops the server.
 */
const watchdogScript = `
parent=$1; shift
redis-server "$@" &
server=$!
echo "$server"
trap 'kill "$server" 2>/dev/null; wait "$server"; exit 0' TERM INT
while kill -0 "$parent" 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 0.2; done
kill "$server" 2>/dev/null
wait "$server"
`;

/** Where `redis-server` is, or why it cannot be used. */
function findRedisServer(): { available: true; version: string } | { available: false; reason: string } {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (probe.error || probe.status !== 0) {
    return { available: false, reason: 'redis-server is not installed (apt-get install redis-server)' };
  }
  return { available: true, version: probe.stdout.trim() };
}

/**
 * The describe-level gate of every Redis test file: `{ skip: false }`, `{ skip: true, reason }` outside
 * CI without redis-server, and a thrown error under CI=true without it.
 */
export function redisTestGate(): { skip: false } | { skip: true; reason: string } {
  const found = findRedisServer();
  if (found.available) return { skip: false };
  if (process.env.CI === 'true') throw new Error(`Failed to run the Redis store tests under CI: ${found.reason}`);
  return { skip: true, reason: found.reason };
}

export async function startRedisServer(options: { extraArgs?: string[] } = {}): Promise<RedisServerHandle> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let paused = false;

  let redisPid = 0;
  const signal = (name: NodeJS.Signals) => {
    try {
      if (redisPid) process.kill(redisPid, name);
    } catch {
      // Already gone.
    }
  };

  const start = async () => {
    if (child) return;
    const redisArgs = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
      '--loglevel',
      'warning',
      '--daemonize',
      'no',
      ...(options.extraArgs ?? []),
    ];
    // A watchdog shell: it stops redis-server when the test process is gone, even after a SIGKILL that
    // leaves no chance to clean up, so no run can leave a server behind.
    const spawned = spawn('sh', ['-c', watchdogScript, 'redis-watchdog', String(process.pid), ...redisArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = spawned;
    running.add(spawned);
    let stderr = '';
    spawned.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2_000);
    });
    let stdout = '';
    spawned.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^(\d+)\n/.exec(stdout);
      if (match) redisPid = Number(match[1]);
    });
    spawned.once('exit', () => {
      running.delete(spawned);
      if (child === spawned) child = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (child !== spawned)
        throw new Error(
          `Failed to start redis-server on 127.0.0.1:${port}: it exited (${stderr.trim() || 'no output'})`,
        );
      if (Date.now() > deadline) {
        signal('SIGKILL');
        spawned.kill('SIGKILL');
        throw new Error(`Failed to start redis-server on 127.0.0.1:${port}: no PONG within 10 s`);
      }
      await delay(20);
    }
  };

  const stop = async () => {
    const current = child;
    if (!current) return;
    if (paused) {
      signal('SIGCONT');
      paused = false;
    }
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    signal('SIGTERM');
    const forced = setTimeout(() => {
      signal('SIGKILL');
      current.kill('SIGKILL');
    }, 2_000);
    await exited;
    clearTimeout(forced);
    redisPid = 0;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    pause() {
      if (child && !paused) {
        signal('SIGSTOP');
        paused = true;
      }
    },
    resume() {
      if (child && paused) {
        signal('SIGCONT');
        paused = false;
      }
    },
  };
}

export interface RedisClusterHandle {
  readonly nodes: RedisServerHandle[];
  /** One node's URL: node-redis discovers the others from it. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A Redis Cluster of `size` masters (no replicas), each a server as above with cluster mode on and its
 * nodes file in a temporary folder removed at stop; resolves once every node reports cluster_state:ok.
 *
 * @example const cluster = await startRedisCluster(); connectRedisStore({ url: cluster.url, cluster: true }, options)
 */
export async function startRedisCluster(size = 3): Promise<RedisClusterHandle> {
  const folder = mkdtempSync(join(tmpdir(), 'petstore-redis-cluster-'));
  const nodes: RedisServerHandle[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < size; index += 1) {
      nodes.push(
        await startRedisServer({
          extraArgs: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${index}.conf`,
            '--dir',
            folder,
            '--cluster-node-timeout',
            '2000',
          ],
        }),
      );
    }
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0)
      throw new Error(
        `Failed to create a Redis Cluster: ${(create.stderr || create.stdout).trim().split('\n').at(-1)}`,
      );
    const deadline = Date.now() + 20_000;
    for (const node of nodes) {
      while (
        !/cluster_state:ok/.test(
          spawnSync('redis-cli', ['-p', String(node.port), 'cluster', 'info'], { encoding: 'utf8', timeout: 5_000 })
            .stdout ?? '',
        )
      ) {
        if (Date.now() > deadline) throw new Error('Failed to create a Redis Cluster: not ok within 20 s');
        await delay(100);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, url: nodes[0]!.url, stop };
}

/** A port the kernel just handed out on 127.0.0.1 (redis-server cannot take port 0 itself). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One inline PING over a raw socket: the harness needs no Redis client. */
export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
