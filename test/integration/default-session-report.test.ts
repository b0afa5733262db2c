/**
 * The default session's lab report outlives any number of named sessions: the lab bounds the named
 * ones (least recently fed forgotten first) and never forgets the default one, whose report is what
 * `--report` writes and `--min-coverage` gates on shutdown.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLabReport } from '../../src/lab/lab-report-schema.js';
import { call, createTestApp } from '../support/core-test-app.js';
import { startMockProcess } from '../support/mock-process.js';

describe('the default session report', () => {
  it("keeps the default session's clients and coverage while 60 named sessions come and go", async () => {
    const app = createTestApp({ config: { sessions: { maxSessions: 3, idleSeconds: 60 } } });
    expect((await call(app, 'GET', '/v1/categories', { key: 'not-a-key' })).status).toBe(401);
    expect((await call(app, 'POST', '/v1/categories', { key: 'demo-free', json: { nome: 'typo' } })).status).toBe(400);
    for (let wave = 0; wave < 20; wave += 1) {
      for (let index = 0; index < 3; index += 1) {
        expect(
          (
            await call(app, 'GET', '/v1/categories', {
              key: 'demo-pro',
              headers: { 'x-mock-session': `job-${wave}-${index}` },
            })
          ).status,
        ).toBe(200);
      }
      // The wave goes idle and is forgotten by the store; the next one takes its places.
      app.clock.advance(61_000);
    }
    const report = await app.controls.report();
    expect(report.session).toBe('default');
    expect(report.coverage.situations['401'].met).toBe(true);
    expect(report.coverage.situations['400'].met).toBe(true);
    expect(report.clients.map((client) => client.client)).toContain('demo-free');
    // The named sessions are bounded: the newest wave is still there, an old one is gone.
    expect((await app.controlsFor('job-19-2').report()).clients.map((client) => client.client)).toEqual(['demo-pro']);
    expect((await app.controlsFor('job-0-0').report()).clients).toEqual([]);
  });

  it('--report and --min-coverage read the default session after named sessions came and went', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-default-report-'));
    const reportPath = join(folder, 'report.json');
    const configPath = join(folder, 'mock.yaml');
    await writeFile(configPath, 'sessions: { maxSessions: 2, idleSeconds: 1 }\n');
    const mock = await startMockProcess(
      ['--config', configPath, '--report', reportPath, '--min-coverage', '401'],
      60_000,
    );
    const send = async (key: string, session?: string) =>
      (
        await fetch(`${mock.baseUrl}/categories`, {
          headers: { authorization: `Bearer ${key}`, ...(session ? { 'x-mock-session': session } : {}) },
        })
      ).status;
    try {
      expect(await send('not-a-key')).toBe(401);
      for (const session of ['a', 'b']) expect(await send('demo-pro', session)).toBe(200);
      // Idle for a second (the shortest idleSeconds), both named sessions are forgotten by the store: two new ones take their place.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      for (const session of ['c', 'd']) expect(await send('demo-pro', session)).toBe(200);
    } finally {
      await mock.stop();
    }
    expect(mock.child.exitCode).toBe(0);
    const report = parseLabReport(await readFile(reportPath, 'utf8'));
    expect(report.coverage.situations['401'].met).toBe(true);
    expect(report.clients.length).toBeGreaterThan(0);
  }, 120_000);
});
