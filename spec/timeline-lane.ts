import type { TimelineInput } from './timeline-input.js';
import { escapeXml, fmt, fontSizes, formatCount, isoShort, textElement, textWidth } from './timeline-text.js';

// One client's lane of the timeline: its requests measured (each one's minute), its outcome colours, and
// its plot and labels drawn. See renderTimelineSvg in timeline-svg.ts.

export type Outcome = 'ok' | 'client-error' | 'server-error' | 'rate-limited' | 'banned' | 'fault';

/** Okabe-Ito colours (told apart with every common colour-vision deficiency), in drawing order. */
export const outcomeStyles: readonly { outcome: Outcome; colour: string; label: string }[] = [
  { outcome: 'ok', colour: '#009E73', label: '2xx (and 1xx, 3xx)' },
  { outcome: 'client-error', colour: '#E69F00', label: '4xx other than 429' },
  { outcome: 'server-error', colour: '#000000', label: '5xx' },
  { outcome: 'rate-limited', colour: '#D55E00', label: '429 rate_limited' },
  { outcome: 'banned', colour: '#CC79A7', label: '429 key_banned' },
  { outcome: 'fault', colour: '#56B4E9', label: 'fault: no usable answer (reset, close, timeout, malformed, empty)' },
];
export const banColour = '#CC79A7';

export const laneHeight = 72;
export const laneGap = 12;
/** Space at the picture's left and right edges. */
export const margin = 10;
/** The top and bottom of a lane stay free, so a mark (4 px either side) never leaves it. */
const lanePad = 6;
export const minuteMs = 60_000;

export type Lane = TimelineInput['clients'][number];

export interface MeasuredLane {
  lane: Lane;
  /** Label lines, the name first; widths estimated. */
  lines: { text: string; width: number }[];
  alias: boolean;
  /** In time order, inside the drawn range: [atMs, requests in the 60 s up to it, outcome]. */
  marks: { atMs: number; perMinute: number; outcome: Outcome; retryAfterSeconds: number | undefined }[];
  scaleMax: number;
  scaleLabel: string;
  dense: boolean;
}

/** What people call a client, by its recorded name, and the other name a known client is recorded under. */
export interface LaneNames {
  /** Recorded name (a replay pseudonym) -> the name people know (a `--key` label, a demo key). */
  names?: Readonly<Record<string, string>>;
  /** A client's name -> the other name it is recorded under (a demo key -> its export pseudonym). */
  aliases?: Readonly<Record<string, string>>;
}

/** Orders a lane's requests, counts each one's minute and chooses the lane's scale and labels. */
export function measureLane(lane: Lane, from: number, to: number, { names, aliases }: LaneNames): MeasuredLane {
  const requests = lane.requests
    .filter((request) => request.atMs >= from && request.atMs <= to)
    .sort((a, b) => a.atMs - b.atMs);
  const marks: MeasuredLane['marks'] = [];
  let windowStart = 0;
  let peak = 0;
  const spent = lane.spentBefore;
  // The first request the scenario's count applies to: those before it are in its count already.
  const firstAfterSpent = spent === undefined ? 0 : requests.findIndex((request) => request.atMs >= spent.atMs);
  requests.forEach((request, index) => {
    while (requests[windowStart]!.atMs <= request.atMs - minuteMs) windowStart += 1;
    const spentMinute =
      spent !== undefined && request.atMs >= spent.atMs && request.atMs < spent.minuteStartMs + minuteMs;
    const perMinute = spentMinute
      ? spent.count + index - Math.max(windowStart, firstAfterSpent) + 1
      : index - windowStart + 1;
    peak = Math.max(peak, perMinute);
    marks.push({
      atMs: request.atMs,
      perMinute,
      outcome: outcomeOf(request, lane.bans),
      retryAfterSeconds: request.status === 429 ? request.retryAfterSeconds : undefined,
    });
  });
  const limit = lane.limits.perMinute;
  // The scale reaches the budget line when it is within reach of the traffic, else the traffic alone.
  const scaleMax = niceCeiling(Math.max(peak, limit > 0 && limit <= peak * 4 ? limit : 0, 1) * 1.1);

  const known = lane.label ?? ownValue(names, lane.client);
  const name = known !== undefined && known !== lane.client ? known : lane.client;
  const alias = name !== lane.client ? lane.client : (ownValue(aliases, lane.client) ?? null);
  const refused = marks.filter((mark) => mark.outcome === 'banned' || mark.outcome === 'rate-limited').length;
  const faults = lane.requests.filter((request) => request.fault !== undefined).length;
  const texts = [
    name,
    ...(alias === null ? [] : [alias]),
    `${lane.plan}${limit > 0 ? ` · ${formatCount(limit)}/min${lane.limits.perDay > 0 ? `, ${formatCount(lane.limits.perDay)}/day` : ''}` : ''}`,
    `${formatCount(lane.requests.length)} request${lane.requests.length === 1 ? '' : 's'}${refused > 0 ? ` · ${formatCount(refused)}× 429` : ''}${lane.bans.length > 0 ? ` · ${lane.bans.length} ban${lane.bans.length === 1 ? '' : 's'}` : ''}${spent !== undefined && spent.count > 0 ? ` · ${formatCount(spent.count)} spent before` : ''}${faults > 0 ? ` · ${formatCount(faults)} fault${faults === 1 ? '' : 's'}` : ''}`,
  ];
  return {
    lane,
    lines: texts.map((text, index) => ({
      text,
      width: textWidth(text, index === 0 ? fontSizes.name : fontSizes.small, index === 0),
    })),
    alias: alias !== null,
    marks,
    scaleMax,
    scaleLabel: formatCount(scaleMax),
    dense: false,
  };
}

function ownValue(record: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A 429 is a ban's when its code says so or, without a code, when it falls inside a ban. */
function outcomeOf(request: Lane['requests'][number], bans: Lane['bans']): Outcome {
  // A fault that left the client without a usable answer; a status fault and a slow body are drawn as their status.
  if (request.fault !== undefined && unusableFaults.has(request.fault)) return 'fault';
  if (request.status === 429) {
    if (request.code === 'key_banned') return 'banned';
    if (request.code === 'rate_limited') return 'rate-limited';
    return bans.some((ban) => request.atMs >= ban.fromMs && request.atMs < ban.toMs) ? 'banned' : 'rate-limited';
  }
  if (request.status >= 500) return 'server-error';
  if (request.status >= 400) return 'client-error';
  return 'ok';
}

const unusableFaults = new Set(['reset', 'close', 'timeout', 'malformed', 'empty']);

/** Where a lane is drawn, and its time scale. */
export interface LaneGeometry {
  laneTop: number;
  left: number;
  plotWidth: number;
  x: (ms: number) => number;
  from: number;
  to: number;
}

/** A lane's plot: its background, ban bands, budget line, Retry-After waits and marks. */
export function drawLane(lane: MeasuredLane, geometry: LaneGeometry): string[] {
  const laneBottom = geometry.laneTop + laneHeight;
  const y = (perMinute: number) => laneBottom - lanePad - (perMinute / lane.scaleMax) * (laneHeight - 2 * lanePad);
  return [...drawBansAndBudget(lane, geometry, y), ...drawWaits(lane, geometry, y), ...drawMarks(lane, geometry, y)];
}

function drawBansAndBudget(lane: MeasuredLane, geometry: LaneGeometry, y: (perMinute: number) => number): string[] {
  const { laneTop, left, plotWidth, x, from, to } = geometry;
  const out: string[] = [
    `<rect x="${left}" y="${laneTop}" width="${plotWidth}" height="${laneHeight}" fill="#f9fafb" stroke="#e5e7eb"/>`,
  ];
  for (const ban of lane.lane.bans) {
    const start = Math.max(from, ban.fromMs);
    const end = Math.min(to, ban.toMs);
    if (!(end > start)) continue;
    out.push(
      `<rect x="${fmt(x(start))}" y="${laneTop}" width="${fmt(Math.max(1, x(end) - x(start)))}" height="${laneHeight}" fill="${banColour}" fill-opacity="0.18"><title>${escapeXml(`banned ${isoShort(ban.fromMs)} → ${isoShort(ban.toMs)} UTC`)}</title></rect>`,
    );
  }

  const limit = lane.lane.limits.perMinute;
  if (limit > 0 && limit <= lane.scaleMax) {
    const limitY = y(limit);
    out.push(
      `<line x1="${left}" y1="${fmt(limitY)}" x2="${left + plotWidth}" y2="${fmt(limitY)}" stroke="#111827" stroke-width="1" stroke-dasharray="5 3"/>`,
    );
    // Above the line when there is room in the lane, else under it.
    const baseline = limitY - 3 - fontSizes.tiny < laneTop + 1 ? limitY + fontSizes.tiny + 1 : limitY - 3;
    out.push(
      textElement(`budget ${formatCount(limit)}/min`, {
        x: left + plotWidth - 4,
        y: baseline,
        size: fontSizes.tiny,
        fill: '#111827',
        anchor: 'end',
        halo: true,
        maxWidth: plotWidth - 8,
      }),
    );
  } else if (limit > 0) {
    out.push(
      textElement(`budget ${formatCount(limit)}/min, above this scale`, {
        x: left + plotWidth - 4,
        y: laneTop + lanePad + 8,
        size: fontSizes.tiny,
        fill: '#6b7280',
        anchor: 'end',
        maxWidth: plotWidth - 8,
      }),
    );
  }

  return out;
}

function drawWaits(lane: MeasuredLane, geometry: LaneGeometry, y: (perMinute: number) => number): string[] {
  const { x, to } = geometry;
  const out: string[] = [];
  // Retry-After: each wait from its 429 to the time it named; waits of one kind (throttled, banned)
  // that overlap or touch (within 2 px) are one stroke, so a hammering client draws a bounded number.
  const waits = new Map<string, { startX: number; endX: number; y: number }[]>();
  for (const mark of lane.marks) {
    if (mark.retryAfterSeconds === undefined || !(mark.retryAfterSeconds > 0)) continue;
    const startX = x(mark.atMs);
    const endX = x(Math.min(to, mark.atMs + mark.retryAfterSeconds * 1000));
    const colour = mark.outcome === 'banned' ? banColour : outcomeColour('rate-limited');
    const list = waits.get(colour) ?? [];
    waits.set(colour, list);
    const last = list[list.length - 1];
    if (last !== undefined && startX <= last.endX + 2) last.endX = Math.max(last.endX, endX);
    else list.push({ startX, endX, y: y(mark.perMinute) });
  }
  for (const [colour, list] of waits) {
    const d = list
      .map((wait) => `M${fmt(wait.startX)} ${fmt(wait.y)}H${fmt(wait.endX)}M${fmt(wait.endX)} ${fmt(wait.y - 4)}v8`)
      .join('');
    out.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="1.5" stroke-dasharray="4 2"/>`);
  }

  return out;
}

function drawMarks(lane: MeasuredLane, geometry: LaneGeometry, y: (perMinute: number) => number): string[] {
  const { left, plotWidth, x } = geometry;
  const out: string[] = [];
  // One stroke per pixel column and outcome, from the lowest to the highest mark in it: a lone request
  // is a short tick at its time, a dense stretch a solid band. One path per outcome keeps the file small.
  const columns = Math.max(1, Math.ceil(plotWidth));
  const spans = new Map(
    outcomeStyles.map(({ outcome }) => [
      outcome,
      {
        low: new Float64Array(columns).fill(Number.POSITIVE_INFINITY),
        high: new Float64Array(columns).fill(Number.NEGATIVE_INFINITY),
        count: new Uint32Array(columns),
      },
    ]),
  );
  for (const mark of lane.marks) {
    const { low, high, count } = spans.get(mark.outcome)!;
    const column = Math.min(columns - 1, Math.floor(x(mark.atMs) - left));
    const markY = y(mark.perMinute);
    low[column] = Math.min(low[column]!, markY);
    high[column] = Math.max(high[column]!, markY);
    count[column] = count[column]! + 1;
  }
  for (const { outcome, colour } of outcomeStyles) {
    const { low, high, count } = spans.get(outcome)!;
    let d = '';
    for (let column = 0; column < columns; column += 1) {
      if (count[column] === 0) continue;
      if (count[column]! > 1) lane.dense = true;
      d += `M${fmt(left + column + 0.5)} ${fmt(low[column]! - 4)}V${fmt(high[column]! + 4)}`;
    }
    if (d !== '') out.push(`<path d="${d}" stroke="${colour}" stroke-width="2"/>`);
  }
  return out;
}

/** A lane's labels: its name lines in the label column, its scale beside the plot. */
export function drawLaneLabels(
  lane: MeasuredLane,
  laneTop: number,
  columns: { labelWidth: number; left: number },
): string[] {
  const out = lane.lines.map((line, index) =>
    textElement(line.text, {
      x: margin,
      y: laneTop + 14 + index * 15,
      size: index === 0 ? fontSizes.name : fontSizes.small,
      bold: index === 0,
      fill: index === 0 ? '#111827' : '#4b5563',
      maxWidth: columns.labelWidth,
    }),
  );
  out.push(
    textElement(lane.scaleLabel, {
      x: columns.left - 6,
      y: laneTop + lanePad + 8,
      size: fontSizes.tiny,
      fill: '#6b7280',
      anchor: 'end',
    }),
    textElement('0', {
      x: columns.left - 6,
      y: laneTop + laneHeight - 2,
      size: fontSizes.tiny,
      fill: '#6b7280',
      anchor: 'end',
    }),
  );
  return out;
}

export function outcomeColour(outcome: Outcome): string {
  return outcomeStyles.find((style) => style.outcome === outcome)!.colour;
}

function niceCeiling(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return Math.round(step * magnitude * 100) / 100;
  return 10 * magnitude;
}
