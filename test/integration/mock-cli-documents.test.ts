import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

// Issue 42: the banner names how the document takes keys (Gotify's X-Gotify-Key, not Bearer), and
// -d / --dynamic (Prism's flag) draws generated data afresh for every answer.
const gotify = `swagger: '2.0'
info: {title: Gotify excerpt, version: '2'}
produces: [application/json]
securityDefinitions: {appTokenHeader: {type: apiKey, in: header, name: X-Gotify-Key}}
security: [{appTokenHeader: []}]
paths:
  /message:
    get:
      responses:
        200: {description: Ok, schema: {type: object, required: [id, title], properties: {id: {type: integer}, title: {type: string}}}}
`;

it('names the document’s key header in the banner, and -d draws afresh on every answer', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'mock-cli-documents-'));
  const file = join(directory, 'gotify.yaml');
  await writeFile(file, gotify);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/mock-cli.ts', file, '-d', '-p', '0'], {
    cwd: process.cwd(),
    env: { ...process.env, PORT: '' },
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  let stdout = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const baseUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match && /Controls at/.test(stdout)) resolve(match[1]!);
      });
      child.on('exit', () => reject(new Error(`the mock exited: ${stdout}`)));
    });
    expect(stdout).toContain('API keys (send X-Gotify-Key: <key>):');
    expect(stdout).not.toContain('Bearer');
    const bodies = await Promise.all(
      [1, 2, 3].map(() =>
        fetch(`${baseUrl}/message`, { headers: { 'x-gotify-key': 'demo-free' } }).then((answer) => answer.text()),
      ),
    );
    expect(new Set(bodies).size).toBeGreaterThan(1);
  } finally {
    child.kill('SIGTERM');
    await exited;
    clearTimeout(killer);
  }
});
