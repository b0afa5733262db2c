import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answersPing, redisTestGate, startRedisServer } from '../support/redis-server.js';

const gate = redisTestGate();

async function until(condition: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe.skipIf(gate.skip)(`redis-server test harness${gate.skip ? ` (skipped: ${gate.reason})` : ''}`, () => {
  it('starts on a free loopback port, stops, starts again on the same port, and pauses', async () => {
    const redis = await startRedisServer();
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}/0`);
      expect(await answersPing(redis.port)).toBe(true);
      await redis.stop();
      expect(await answersPing(redis.port)).toBe(false);
      await redis.start();
      expect(await answersPing(redis.port)).toBe(true);
      redis.pause();
      expect(await answersPing(redis.port)).toBe(false);
      redis.resume();
      expect(await answersPing(redis.port)).toBe(true);
    } finally {
      await redis.stop();
    }
    expect(await answersPing(redis.port)).toBe(false);
  });

  it('leaves no server behind when the test process is killed with SIGKILL', async () => {
    const script = `import { startRedisServer } from ${JSON.stringify(join(import.meta.dirname, '..', 'support', 'redis-server.ts'))};
const redis = await startRedisServer(); console.log(redis.port); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (/^\d+\n/.test(out)) resolve(Number(out.trim()));
        });
        child.once('exit', (code) => reject(new Error(`the child exited with ${code} before starting redis-server`)));
      });
      expect(await answersPing(port)).toBe(true);
      child.kill('SIGKILL');
      expect(await until(async () => !(await answersPing(port)), 5_000)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
