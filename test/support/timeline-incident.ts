import type { TimelineInput } from '../../src/lab/lab-types.js';
import { keyPseudonym } from '../../src/lab/replay-input.js';
import { createTestApp, exchange, testEpochMs } from './core-test-app.js';

/** The `--key` label of the incident's team key, long enough that the timeline has to cut it. */
export const teamKeyLabel = 'checkout-service-production-eu-west-1-canary (team payments, on call: @dana)';
const teamKey = 'sk-checkout-prod-7f3a9c21e4b5';
/** An anonymous client with the longest address there is (IPv6 written out). */
const longAddress = '2001:0db8:85a3:0000:0000:8a2e:0370:7334';

/**
 * A rate-limit incident recorded from the real core on a virtual clock, as `replay --timeline` would
 * draw it: every lane under its export pseudonym, each request with the status, code and Retry-After
 * the mock answered. demo-free bursts past its 60 a minute, is refused with 429s, keeps retrying and
 * is banned; demo-pro polls steadily (a few 404s and one 400 for a malformed Prefer header); the team key (a `--key` label)
 * is throttled once and honours its Retry-After; two anonymous clients meet 401s.
 *
 * @example renderTimelineSvg(input, { names })
 */
export async function recordTimelineIncident(): Promise<{ input: TimelineInput; names: Record<string, string> }> {
  const app = createTestApp({ config: { keys: [{ key: teamKey, plan: 'free' }] } });
  const lanes = new Map<string, TimelineInput['clients'][number]>();
  const limitsOf: Record<string, { plan: string; perMinute: number; perDay: number }> = {
    'demo-free': { plan: 'free', perMinute: 60, perDay: 1000 },
    'demo-pro': { plan: 'pro', perMinute: 300, perDay: 10_000 },
    [teamKey]: { plan: 'free', perMinute: 60, perDay: 1000 },
  };
  const script: { atMs: number; key?: string; address?: string; url: string; prefer?: string }[] = [];
  const at = (seconds: number) => testEpochMs + Math.round(seconds * 1000);
  // demo-free: 75 requests in 25 s, then retries every 2 s, ignoring Retry-After, into a ban.
  for (let index = 0; index < 75; index += 1)
    script.push({ atMs: at(30 + index / 3), key: 'demo-free', url: '/v1/categories' });
  for (let index = 0; index < 12; index += 1)
    script.push({ atMs: at(60 + index * 2), key: 'demo-free', url: '/v1/categories' });
  for (let index = 0; index < 4; index += 1)
    script.push({ atMs: at(300 + index * 120), key: 'demo-free', url: '/v1/categories' });
  // demo-pro: every 5 s for 20 minutes; every 40th asks for a category that is not there; one sends a malformed Prefer.
  for (let index = 0; index < 240; index += 1)
    script.push({
      atMs: at(index * 5 + 1),
      key: 'demo-pro',
      url: index % 40 === 7 ? '/v1/categories/999999' : '/v1/categories',
      ...(index === 120 ? { prefer: 'code=5OO' } : {}),
    });
  // The team key: 65 requests in 30 s (throttled), then waits as told and comes back.
  for (let index = 0; index < 65; index += 1)
    script.push({ atMs: at(400 + index / 2), key: teamKey, url: '/v1/categories' });
  for (let index = 0; index < 5; index += 1)
    script.push({ atMs: at(480 + index * 10), key: teamKey, url: '/v1/categories' });
  // Anonymous: a wrong key now and then, and one address with no key at all.
  for (let index = 0; index < 6; index += 1)
    script.push({ atMs: at(200 + index * 130), key: 'sk-wrong', address: '203.0.113.9', url: '/v1/categories' });
  script.push({ atMs: at(700), address: longAddress, url: '/v1/categories' });
  script.push({ atMs: at(1150), address: longAddress, url: '/v1/categories' });
  script.sort((a, b) => a.atMs - b.atMs);

  for (const step of script) {
    app.clock.advance(step.atMs - app.clock.now());
    const answer = await exchange(app, 'GET', step.url, {
      ...(step.key !== undefined ? { key: step.key } : {}),
      ...(step.prefer !== undefined ? { headers: { Prefer: step.prefer } } : {}),
      clientAddress: step.address ?? '127.0.0.1',
    });
    const known = step.key === undefined ? undefined : limitsOf[step.key];
    const client = known !== undefined ? keyPseudonym(step.key!) : `anonymous ${step.address ?? '127.0.0.1'}`;
    let lane = lanes.get(client);
    if (lane === undefined) {
      lane = {
        client,
        plan: known?.plan ?? 'anonymous',
        limits: known ?? { perMinute: 60, perDay: 1000 },
        requests: [],
        bans: [],
      };
      lanes.set(client, lane);
    }
    const retryAfter = Number(answer.headers['retry-after']);
    lane.requests.push({
      atMs: step.atMs,
      status: answer.status,
      code: typeof answer.json?.code === 'string' ? answer.json.code : null,
      ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
    });
    const last = lane.bans[lane.bans.length - 1];
    if (answer.json?.code === 'key_banned' && (last === undefined || step.atMs >= last.toMs))
      lane.bans.push({ fromMs: step.atMs, toMs: step.atMs + retryAfter * 1000 });
  }
  return {
    input: {
      from: testEpochMs,
      to: testEpochMs + 20 * 60_000,
      title: 'Replay of incident-2026-01-01.jsonl',
      clients: [...lanes.values()],
    },
    names: { [keyPseudonym(teamKey)]: teamKeyLabel },
  };
}
