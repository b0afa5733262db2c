import { maskSecret } from '../../spec/credential-masking.js';
import { keyDigestHex } from '../../spec/interface/key-id.js';
import { type Scenario, scenarioPresets } from '../core/config/scenario-file.js';
import type { MockApp } from '../core/mock-app.js';
import { defaultSessionName } from '../core/state/sessions.js';
import type { ClientWindows } from '../core/state/state-store.js';
import { clientName } from '../core/state/store-checks.js';

// The start banner's account of the scenario the mock started from (--scenario, the config's scenario:),
// read back from the session it set up: whoever reads the terminal during an incident sees which
// situation is in force, and for which keys, before the first request.

/**
 * The lines that name the scenario applied to the default session and where each client it names
 * stands now: the key (masked, demo keys by name), its plan and limits, what it has spent of each
 * window, its ban; then the clock, the categories and the sunset mode when the scenario set them.
 *
 * @example await scenarioBanner(app, merged, ['team.yaml'])
 * // ['Scenario applied to the default session (team.yaml): the team key near its limits', '  presets: after-sunset', ...]
 */
export async function scenarioBanner(app: MockApp, scenario: Scenario, sources: readonly string[]): Promise<string[]> {
  const state = await app.store.snapshot(defaultSessionName, app.baseClock.now());
  const nowMs = Date.parse((await app.controls.clock()).now);
  const windows = new Map((state.clients ?? []).map(({ client, windows: w }) => [clientName(client), w]));
  const parts = [...(scenario.presets ?? []).map((name) => scenarioPresets[name].scenario), scenario];
  const lines = [
    `Scenario applied to the default session (${sources.join(', ')})${scenario.description ? `: ${scenario.description}` : ''}`,
  ];
  if (scenario.presets?.length) lines.push(`  presets: ${scenario.presets.join(', ')}`);
  if (parts.some((part) => part.clock !== undefined)) lines.push(`  clock: ${new Date(nowMs).toISOString()} (virtual)`);

  const keyLines = new Map<string, string>();
  for (const { key } of parts.flatMap((part) => part.keys ?? [])) {
    const id = keyDigestHex(key).slice(0, 32);
    const known = app.startupKeys.find((entry) => entry.key === key);
    const added = state.keys.find((entry) => entry.id === id);
    const display = known?.display ?? maskSecret(key);
    const plan = added?.plan ?? known?.plan ?? '?';
    const limits = added?.limits ?? known?.limits;
    const where = standing(windows.get(`k:${id}`), limits, nowMs);
    keyLines.set(
      id,
      `  ${display.padEnd(18)} ${plan.padEnd(11)}${known === undefined ? ' (new key)' : ''}${limits ? ` ${limits.perMinute}/min, ${limits.perDay}/day` : ''}: ${where}`,
    );
  }
  lines.push(...keyLines.values());
  const anonymousLimits = app.config.anonymous;
  for (const { address } of new Map(
    parts.flatMap((part) => part.anonymous ?? []).map((entry) => [entry.address, entry]),
  ).values())
    lines.push(
      `  anonymous ${address}: ${standing(windows.get(clientName({ kind: 'anonymous', address })), anonymousLimits, nowMs)}`,
    );

  const created = parts.reduce((sum, part) => sum + (part.categories?.length ?? 0), 0);
  if (created > 0) lines.push(`  categories: ${created} created`);
  const afterSunset = state.afterSunset;
  if (parts.some((part) => part.sunset !== undefined) && afterSunset !== undefined)
    lines.push(`  after the sunset date: ${afterSunset === 'gone' ? '410 Gone' : 'served'}`);
  return lines;
}

/** What a client has spent of its windows, and its ban, as the limiter holds them at `nowMs`. */
function standing(
  windows: ClientWindows | undefined,
  limits: { perMinute: number; perDay: number } | undefined,
  nowMs: number,
): string {
  if (windows === undefined) return 'nothing spent';
  const parts: string[] = [];
  const minute = windows.minuteStartMs + 60_000 > nowMs ? windows.minuteCount : 0;
  const day = windows.dayStartMs + 86_400_000 > nowMs ? windows.dayCount : 0;
  parts.push(
    `minute ${minute}${limits ? `/${limits.perMinute}` : ''} spent`,
    `day ${day}${limits ? `/${limits.perDay}` : ''}`,
  );
  if (windows.bannedUntilMs !== null && windows.bannedUntilMs > nowMs)
    parts.push(
      `banned for ${Math.ceil((windows.bannedUntilMs - nowMs) / 1000)} s (until ${new Date(windows.bannedUntilMs).toISOString()})`,
    );
  return parts.join(', ');
}
