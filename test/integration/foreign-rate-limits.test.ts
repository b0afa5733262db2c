import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readSpecFile } from '../../spec/load-spec.js';
import type { MockConfigInput } from '../../src/core/config/mock-config.js';
import { createMockApp } from '../../src/core/mock-app.js';

// Issue 42 item 5: rate limits on a document that is not the Petstore's come from that document or
// the config, never from the Petstore's anonymous budget (docs/decisions/037). Matrix's content
// repository declares a 429 on every operation and secures /media/v3/config.
const matrixPath = fileURLToPath(new URL('../fixtures/specs/matrix-content-repo/content-repo.yaml', import.meta.url));
const matrix = await readSpecFile(matrixPath);

async function statusesOf(config: MockConfigInput | undefined, count: number, headers: Record<string, string> = {}) {
  const app = createMockApp({ spec: matrix, config });
  // By status, a ban told apart from a 429 over the budget by its message.
  const statuses = new Map<string, number>();
  for (let index = 0; index < count; index += 1) {
    const answer = await app.handle({
      method: 'GET',
      url: '/_matrix/media/v3/config',
      headers,
      body: null,
      clientAddress: '10.0.0.7',
    });
    const outcome = `${answer.status}${/banned/.test(String(answer.body)) ? ' banned' : ''}`;
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
  }
  await app.close();
  return Object.fromEntries(statuses);
}

describe('rate limits of a foreign document that declares a 429', () => {
  it('answers 200 keyless requests to a secured operation 401, never 429 nor a ban', async () => {
    expect(await statusesOf(undefined, 200)).toEqual({ 401: 200 });
  });

  it('applies an anonymous budget the config sets, then bans as the config says', async () => {
    const statuses = await statusesOf({ anonymous: { perMinute: 5, perDay: 100 } }, 20);
    expect(statuses).toEqual({ 401: 5, 429: 10, '429 banned': 5 });
  });

  it('applies the default anonymous budget when the config asks with limitAnonymous alone', async () => {
    expect((await statusesOf({ limitAnonymous: true }, 61))[429]).toBe(1);
  });

  it('still limits a keyed client by its plan, as the document declares a 429', async () => {
    const statuses = await statusesOf(undefined, 61, { authorization: 'Bearer demo-free' });
    expect(statuses).toEqual({ 200: 60, 429: 1 });
  });
});
