import type { TimelineInput } from '../../../spec/timeline-input.js';
import { renderTimelineSvg } from '../../../spec/timeline-svg.js';
import type { ContractReport, KeyTimeline, RequestTimeline } from '../report-model.js';
import { ruleLink } from './html-rules.js';
import { html, statusClass, visible } from './html-text.js';

/** The widths the picture is drawn at: one for a wide page, one for a phone (the style sheet shows one). */
const wideWidth = 1200;
const narrowWidth = 480;

/**
 * The rate-limit story of the run: its requests per key drawn by the lab's timeline (spec/
 * timeline-svg.ts: a mark per request coloured by outcome, raised by the key's requests in the
 * minute up to it, the announced X-RateLimit-Limit as a line, each Retry-After as the wait it asked
 * for), then per key what happened in words, the waits the run made, and the verdicts of the
 * rate-limit rules (§8). Empty when the report has no timeline (a report of an older kit).
 */
export function timelineSection(report: ContractReport): string {
  const timeline = report.requestTimeline;
  if (timeline === undefined || timeline.keys.length === 0) return '';
  const input = timelineInput(timeline);
  const waits = report.log.filter((line) => /^(?:petstore-contract: )?waiting\b/.test(line));
  const rateChecks = report.results.filter((result) => /^§8\b/.test(result.rule));
  return [
    '<section id="rate-limits" class="timeline">',
    '<h2>Requests per key and the rate limits</h2>',
    `<div class="wide">${renderTimelineSvg(input, { width: wideWidth })}</div>`,
    `<div class="narrow">${renderTimelineSvg(input, { width: narrowWidth })}</div>`,
    `<ul>${timeline.keys.map((key) => `<li>${keyStory(key)}</li>`).join('')}</ul>`,
    waits.length === 0
      ? ''
      : `<h3>Waits</h3><ul>${waits.map((line) => `<li>${html(line.replace(/^petstore-contract: /, ''))}</li>`).join('')}</ul>`,
    rateChecks.length === 0
      ? ''
      : `<h3>Rate-limit checks</h3><ul>${rateChecks
          .map((result) => {
            const status = result.inconclusive === true ? 'INCONCLUSIVE' : result.status;
            return `<li><span class="${statusClass(status)}">${html(status)}</span> ${ruleLink(report, result.rule)} ${html(result.title)}${result.message === undefined || result.message === '' ? '' : `: ${html(result.message)}`}</li>`;
          })
          .join('')}</ul>`,
    '</section>',
  ].join('\n');
}

/**
 * The timeline as the lab's renderer reads it: a lane per key, the smallest X-RateLimit-Limit the
 * key was told as its per-minute budget; requests that got no answer are left out (the story counts them).
 */
export function timelineInput(timeline: RequestTimeline): TimelineInput {
  return {
    from: timeline.fromMs,
    to: timeline.fromMs + Math.max(timeline.toMs, 1),
    clients: timeline.keys.map((key) => ({
      client: visible(key.key),
      plan: key.announcedLimit === undefined ? 'no X-RateLimit-Limit' : 'X-RateLimit-Limit',
      limits: { perMinute: key.announcedLimit ?? 0, perDay: 0 },
      requests: key.requests.flatMap((request) =>
        request.status === undefined
          ? []
          : [
              {
                atMs: timeline.fromMs + request.atMs,
                status: request.status,
                // The code only tells a ban's 429 from a limit's; a server's other words are not drawn.
                ...(request.code === undefined
                  ? {}
                  : { code: /^\w{1,64}$/.test(request.code) ? request.code : 'other' }),
                ...(request.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: request.retryAfterSeconds }),
              },
            ],
      ),
      bans: [],
    })),
  };
}

/**
 * One key's requests in words: how many, the announced limit, the 429s (the first one after how
 * many requests, and when), the Retry-After each asked for, and the requests without an answer.
 *
 * @example keyStory(key) // 'rate-limit key ref-…(15): 123 requests · X-RateLimit-Limit 60 · 2 answered 429, the first to request 61, at +2.4 s · Retry-After 37 s, 59 s'
 */
export function keyStory(key: KeyTimeline): string {
  const parts = [`${key.requests.length} ${key.requests.length === 1 ? 'request' : 'requests'}`];
  if (key.announcedLimit !== undefined) parts.push(`X-RateLimit-Limit ${key.announcedLimit}`);
  const refused = key.requests.filter((request) => request.status === 429);
  if (refused.length > 0) {
    const first = key.requests.findIndex((request) => request.status === 429);
    parts.push(
      `${refused.length} answered 429, the first to request ${first + 1}, at +${seconds(key.requests[first]!.atMs)}`,
    );
    const waits = refused.flatMap((request) =>
      request.retryAfterSeconds === undefined ? [] : [`${request.retryAfterSeconds} s`],
    );
    parts.push(
      waits.length === 0
        ? 'no 429 gave a usable Retry-After'
        : `Retry-After ${waits.join(', ')}${waits.length < refused.length ? ` (${refused.length - waits.length} without a usable one)` : ''}`,
    );
  }
  const unanswered = key.requests.filter((request) => request.status === undefined).length;
  if (unanswered > 0) parts.push(`${unanswered} without an answer`);
  return `<b>${html(key.key)}</b>: ${html(parts.join(' · '))}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
