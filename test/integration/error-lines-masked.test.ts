import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// petstore-mock's proxy refuses an upstream URL with a query, and the line quoting it masks a key the
// query carries (a CI log is read by many).

const root = join(import.meta.dirname, '../..');

describe('petstore-mock error lines', () => {
  it('mask a credential the refused upstream URL carries', () => {
    const secret = 'qs-secret-0123456789';
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/cli/mock-cli.ts'), 'proxy', `http://127.0.0.1:9/v1?access_token=${secret}`],
      { cwd: root, encoding: 'utf8', timeout: 20_000, env: { ...process.env, PORT: '' } },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^petstore-mock proxy: Failed to read the upstream URL .*access_token=qs-s…\(20\)/);
    for (let at = 0; at + 8 <= secret.length; at += 1) expect(result.stderr).not.toContain(secret.slice(at, at + 8));
  });
});
