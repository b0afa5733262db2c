import { renderTimelineSvg as drawTimeline, type TimelineOptions } from '../../spec/timeline-svg.js';
import { demoKeys } from '../core/config/mock-config.js';
import type { TimelineInput } from './lab-types.js';
import { keyPseudonym } from './replay-input.js';

export { escapeXml, formatDuration, type TimelineOptions } from '../../spec/timeline-svg.js';
export type { TimelineInput } from './lab-types.js';

// The drawing itself is spec/timeline-svg.ts (shared with the contract kit's HTML report); the lab
// adds what only the mock knows: the demo keys, and the pseudonyms an export records them under.
const demoKeyByPseudonym = Object.fromEntries(demoKeys.map(({ key }) => [keyPseudonym(key), key]));
const pseudonymOfDemoKey = Object.fromEntries(demoKeys.map(({ key }) => [key, keyPseudonym(key)]));

/**
 * Draws recorded traffic as an SVG picture (see spec/timeline-svg.ts), the demo keys shown by
 * their names with their export pseudonym beside them, and `options.names` over those.
 *
 * @example renderTimelineSvg({ from, to, clients: [{ client: 'demo-free', plan: 'free', limits, requests, bans: [] }] })
 */
export function renderTimelineSvg(input: TimelineInput, options: TimelineOptions = {}): string {
  return drawTimeline(input, {
    ...options,
    names: { ...demoKeyByPseudonym, ...options.names },
    aliases: { ...pseudonymOfDemoKey, ...options.aliases },
  });
}
