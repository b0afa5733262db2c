import { drawAxis, drawLegend } from './timeline-frame.js';
import type { TimelineInput } from './timeline-input.js';
import {
  drawLane,
  drawLaneLabels,
  type LaneNames,
  laneGap,
  laneHeight,
  type MeasuredLane,
  margin,
  measureLane,
  minuteMs,
} from './timeline-lane.js';
import { fontSizes, formatCount, isoShort, textElement, textWidth } from './timeline-text.js';

export type { TimelineInput } from './timeline-input.js';
export { escapeXml } from './timeline-text.js';

export interface TimelineOptions extends LaneNames {
  /** Pixels, 480 to 4,000. Default 1,000. */
  width?: number;
  /** The busiest clients drawn, the others counted in the subtitle. Default 40. */
  maxLanes?: number;
}

const fontFamily = 'system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif';

/**
 * Draws recorded traffic as an SVG picture, one renderer for `replay --timeline`, the dashboard, the
 * lab and the contract kit's HTML report (src/lab/timeline-svg.ts adds the demo keys' names): a lane per client with one mark per request at its time, coloured by outcome (2xx, 4xx,
 * 429 `rate_limited`, 429 `key_banned`, 5xx) and raised by the client's requests in the 60 s up to it,
 * so a burst climbs towards the per-minute budget drawn as a line; bans are bands, and each
 * Retry-After is drawn as the wait it asked for, from the 429 to the time it named. Clients are shown
 * by the names people know (the demo keys by name) with their export pseudonym beside them.
 *
 * Labels are laid out from conservative text widths, so none overlaps another or leaves the picture
 * (a long name is cut with an ellipsis and keeps its full text in a <title>). Where more than one
 * request falls in a pixel column the marks merge into one stroke, so 100,000 requests stay a picture
 * of bounded size (the legend says so). Deterministic (same input, same bytes); every text escaped;
 * browser-safe.
 *
 * @example renderTimelineSvg({ from, to, clients: [{ client: 'demo-free', plan: 'free', limits, requests, bans: [] }] })
 */
export function renderTimelineSvg(input: TimelineInput, options: TimelineOptions = {}): string {
  const width = clamp(Math.round(options.width ?? 1000), 480, 4000);
  const from = Number.isFinite(input.from) ? input.from : 0;
  const to = Number.isFinite(input.to) && input.to > from ? input.to : from + minuteMs;
  const span = to - from;
  const lanes = visibleLanes(input, from, to, options);

  // Columns: client labels | scale labels | plot. The label column is as wide as the longest label, within bounds.
  const labelWidth = Math.min(
    Math.round(width * 0.28),
    Math.max(120, ...lanes.flatMap((lane) => lane.lines.map((line) => Math.ceil(line.width)))),
  );
  const gutter = Math.ceil(
    Math.max(textWidth('0', fontSizes.tiny), ...lanes.map((lane) => textWidth(lane.scaleLabel, fontSizes.tiny))),
  );
  const left = margin + labelWidth + 12 + gutter + 6;
  const right = 14;
  const plotWidth = width - left - right;
  const x = (ms: number) => left + ((ms - from) / span) * plotWidth;

  const heading = drawHeading(input, { from, to, width, shown: lanes.length });
  const body = heading.elements;
  let y = heading.bottom;

  if (lanes.length === 0) {
    y += 24;
    body.push(textElement('No requests.', { x: margin, y, size: fontSizes.name, fill: '#6b7280' }));
    y += 12;
  }
  let dense = false;
  let aliases = false;
  for (const lane of lanes) {
    const laneTop = y;
    body.push(...drawLane(lane, { laneTop, left, plotWidth, x, from, to }));
    body.push(...drawLaneLabels(lane, laneTop, { labelWidth, left }));
    dense ||= lane.dense;
    aliases ||= lane.alias;
    y += laneHeight + laneGap;
  }

  const axisY = y - laneGap + 4;
  body.push(...drawAxis({ axisY, left, plotWidth, width, from, to, x }));

  const spent = lanes.some((lane) => (lane.lane.spentBefore?.count ?? 0) > 0);
  const legend = drawLegend({ top: axisY + 38, width, dense, aliases, spent });
  body.push(...legend.elements);
  const height = Math.ceil(legend.bottom + 10);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${fontFamily}" font-size="${fontSizes.name}">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** The busiest lanes (in input order), measured: thousands of anonymous clients stay a readable picture. */
function visibleLanes(input: TimelineInput, from: number, to: number, options: TimelineOptions): MeasuredLane[] {
  const maxLanes =
    options.maxLanes !== undefined && Number.isFinite(options.maxLanes)
      ? Math.max(1, Math.floor(options.maxLanes))
      : 40;
  const busiest = new Set(
    input.clients
      .map((lane, index) => ({ lane, index }))
      .sort((a, b) => b.lane.requests.length - a.lane.requests.length || a.index - b.index)
      .slice(0, maxLanes)
      .map((entry) => entry.lane),
  );
  return input.clients.filter((lane) => busiest.has(lane)).map((lane) => measureLane(lane, from, to, options));
}

/** The title (when given) and the line saying what the picture covers; `bottom` is where the lanes start. */
function drawHeading(
  input: TimelineInput,
  { from, to, width, shown }: { from: number; to: number; width: number; shown: number },
): { elements: string[]; bottom: number } {
  const elements: string[] = [];
  let y = 0;
  if (input.title !== undefined && input.title !== '') {
    y += 22;
    elements.push(
      textElement(input.title, { x: margin, y, size: 15, bold: true, fill: '#111827', maxWidth: width - 2 * margin }),
    );
  }
  y += 20;
  const requestCount = input.clients.reduce((sum, lane) => sum + lane.requests.length, 0);
  const hidden = input.clients.length - shown;
  elements.push(
    textElement(
      `${isoShort(from)} → ${isoShort(to)} UTC (${formatDuration(to - from)}), ${formatCount(requestCount)} request${requestCount === 1 ? '' : 's'}${hidden > 0 ? `; the ${shown} busiest of ${input.clients.length} clients` : ''}`,
      { x: margin, y, size: fontSizes.small, fill: '#4b5563', maxWidth: width - 2 * margin },
    ),
  );
  return { elements, bottom: y + 12 };
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min;
}

/** A duration in the largest sensible unit: 450 ms, 12 s, 5 min, 3 h, 2 d. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  const round = (value: number) => (Math.round(value * 10) / 10).toString();
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 120_000) return `${round(ms / 1000)} s`;
  if (abs < 7_200_000) return `${round(ms / 60_000)} min`;
  if (abs < 172_800_000) return `${round(ms / 3_600_000)} h`;
  return `${round(ms / 86_400_000)} d`;
}
