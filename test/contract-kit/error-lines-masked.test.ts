import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

// An error line quotes what it refuses: a base URL carrying a key in its query (`?api_key=`) is refused,
// and the line that says so shows no run of the key (a CI log is read by many).

describe('petstore-contract error lines', () => {
  it('mask a credential the refused command line carries', async () => {
    const secret = 'qs-secret-0123456789';
    for (const name of ['api_key', 'access_token', 'token']) {
      const { code, stderr } = await runCli([
        '--base-url',
        `http://127.0.0.1:9/v1?${name}=${secret}`,
        '--api-key',
        'k-1234567890',
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain('it must not carry a query or a fragment');
      for (let at = 0; at + 8 <= secret.length; at += 1) expect(stderr).not.toContain(secret.slice(at, at + 8));
    }
  });
});
