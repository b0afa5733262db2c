import { demoKeys } from '../core/config/mock-config.js';
import type { TimelineInput } from './lab-types.js';
import { keyPseudonym } from './replay-input.js';
import { escapeXml, fitText, textWidth } from './timeline-text.js';

export type { TimelineInput } from './lab-types.js';
export { escapeXml } from './timeline-text.js';

export interface TimelineOptions {
  /** Pixels, 480 to 4,000. Default 1,000. */
  width?: number;
  /** The busiest clients drawn, the others counted in the subtitle. Default 40. */
  maxLanes?: number;
  /**
   * What people call a client, by its recorded name (a replay pseudonym to a `--key` label). The demo
   * keys' pseudonyms are known without it.
   */
  names?: Readonly<Record<string, string>>;
}

type Outcome = 'ok' | 'client-error' | 'server-error' | 'rate-limited' | 'banned';

/** Okabe-Ito colours (told apart with every common colour-vision deficiency), in drawing order. */
const outcomeStyles: readonly { outcome: Outcome; colour: string; label: string }[] = [
  { outcome: 'ok', colour: '#009E73', label: '2xx (and 1xx, 3xx)' },
  { outcome: 'client-error', colour: '#E69F00', label: '4xx other than 429' },
  { outcome: 'server-error', colour: '#000000', label: '5xx' },
  { outcome: 'rate-limited', colour: '#D55E00', label: '429 rate_limited' },
  { outcome: 'banned', colour: '#CC79A7', label: '429 key_banned' },
];
const banColour = '#CC79A7';

const fontFamily = 'system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif';
const nameSize = 12;
const smallSize = 11;
const tinySize = 10;
const laneHeight = 72;
const laneGap = 12;
const margin = 10;
/** The top and bottom of a lane stay free, so a mark (4 px either side) never leaves it. */
const lanePad = 6;
const minuteMs = 60_000;

/**
 * Draws recorded traffic as an SVG picture, one renderer for `replay --timeline`, the dashboard and
 * the lab: a lane per client with one mark per request at its time, coloured by outcome (2xx, 4xx,
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
  const maxLanes =
    options.maxLanes !== undefined && Number.isFinite(options.maxLanes)
      ? Math.max(1, Math.floor(options.maxLanes))
      : 40;
  const from = Number.isFinite(input.from) ? input.from : 0;
  const to = Number.isFinite(input.to) && input.to > from ? input.to : from + minuteMs;
  const span = to - from;

  // The busiest lanes are drawn (in input order), so thousands of anonymous clients stay a readable picture.
  const busiest = new Set(
    input.clients
      .map((lane, index) => ({ lane, index }))
      .sort((a, b) => b.lane.requests.length - a.lane.requests.length || a.index - b.index)
      .slice(0, maxLanes)
      .map((entry) => entry.lane),
  );
  const lanes = input.clients.filter((lane) => busiest.has(lane)).map((lane) => measureLane(lane, from, to, options));
  const hiddenLanes = input.clients.length - lanes.length;

  // Columns: client labels | scale labels | plot. The label column is as wide as the longest label, within bounds.
  const labelWidth = Math.min(
    Math.round(width * 0.28),
    Math.max(120, ...lanes.flatMap((lane) => lane.lines.map((line) => Math.ceil(line.width)))),
  );
  const gutter = Math.ceil(
    Math.max(textWidth('0', tinySize), ...lanes.map((lane) => textWidth(lane.scaleLabel, tinySize))),
  );
  const left = margin + labelWidth + 12 + gutter + 6;
  const right = 14;
  const plotWidth = width - left - right;
  const x = (ms: number) => left + ((ms - from) / span) * plotWidth;

  const body: string[] = [];
  let y = 0;
  if (input.title !== undefined && input.title !== '') {
    y += 22;
    body.push(
      textElement(input.title, { x: margin, y, size: 15, bold: true, fill: '#111827', maxWidth: width - 2 * margin }),
    );
  }
  y += 20;
  const requestCount = input.clients.reduce((sum, lane) => sum + lane.requests.length, 0);
  body.push(
    textElement(
      `${isoShort(from)} → ${isoShort(to)} UTC (${formatDuration(span)}), ${formatCount(requestCount)} request${requestCount === 1 ? '' : 's'}${hiddenLanes > 0 ? `; the ${lanes.length} busiest of ${input.clients.length} clients` : ''}`,
      { x: margin, y, size: smallSize, fill: '#4b5563', maxWidth: width - 2 * margin },
    ),
  );
  y += 12;

  if (lanes.length === 0) {
    y += 24;
    body.push(textElement('No requests.', { x: margin, y, size: nameSize, fill: '#6b7280' }));
    y += 12;
  }
  let dense = false;
  let aliases = false;
  for (const lane of lanes) {
    const laneTop = y;
    body.push(...drawLane(lane, { laneTop, left, plotWidth, x, from, to }));
    lane.lines.forEach((line, index) => {
      body.push(
        textElement(line.text, {
          x: margin,
          y: laneTop + 14 + index * 15,
          size: index === 0 ? nameSize : smallSize,
          bold: index === 0,
          fill: index === 0 ? '#111827' : '#4b5563',
          maxWidth: labelWidth,
        }),
      );
    });
    body.push(
      textElement(lane.scaleLabel, {
        x: left - 6,
        y: laneTop + lanePad + 8,
        size: tinySize,
        fill: '#6b7280',
        anchor: 'end',
      }),
      textElement('0', { x: left - 6, y: laneTop + laneHeight - 2, size: tinySize, fill: '#6b7280', anchor: 'end' }),
    );
    dense ||= lane.dense;
    aliases ||= lane.alias;
    y += laneHeight + laneGap;
  }

  // The time axis: UTC clock times, as many as fit without touching.
  const axisY = y - laneGap + 4;
  body.push(`<line x1="${left}" y1="${axisY}" x2="${left + plotWidth}" y2="${axisY}" stroke="#9ca3af"/>`);
  const step = tickStep(span, plotWidth);
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (let tick = Math.ceil(from / step) * step, count = 0; tick <= to && count < 1000; tick += step, count += 1) {
    const label = tickLabel(tick, step, span);
    const tickX = x(tick);
    const half = textWidth(label, tinySize) / 2;
    body.push(`<line x1="${fmt(tickX)}" y1="${axisY}" x2="${fmt(tickX)}" y2="${axisY + 4}" stroke="#9ca3af"/>`);
    if (tickX - half < 2 || tickX + half > width - 2 || tickX - half < lastEnd + 8) continue;
    lastEnd = tickX + half;
    body.push(textElement(label, { x: tickX, y: axisY + 16, size: tinySize, fill: '#4b5563', anchor: 'middle' }));
  }

  const legend = drawLegend({ top: axisY + 38, width, dense, aliases });
  body.push(...legend.elements);
  const height = Math.ceil(legend.bottom + 10);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${fontFamily}" font-size="${nameSize}">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

type Lane = TimelineInput['clients'][number];

interface MeasuredLane {
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

const demoKeyByPseudonym = new Map(demoKeys.map(({ key }) => [keyPseudonym(key), key]));
const demoKeyNames = new Set(demoKeys.map(({ key }) => key));

/** Orders a lane's requests, counts each one's minute and chooses the lane's scale and labels. */
function measureLane(lane: Lane, from: number, to: number, options: TimelineOptions): MeasuredLane {
  const requests = lane.requests
    .filter((request) => request.atMs >= from && request.atMs <= to)
    .sort((a, b) => a.atMs - b.atMs);
  const marks: MeasuredLane['marks'] = [];
  let windowStart = 0;
  let peak = 0;
  requests.forEach((request, index) => {
    while (requests[windowStart]!.atMs <= request.atMs - minuteMs) windowStart += 1;
    const perMinute = index - windowStart + 1;
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

  const known =
    lane.label ??
    (options.names !== undefined && Object.hasOwn(options.names, lane.client)
      ? options.names[lane.client]
      : undefined) ??
    demoKeyByPseudonym.get(lane.client);
  const name = known !== undefined && known !== lane.client ? known : lane.client;
  const alias = name !== lane.client ? lane.client : demoKeyNames.has(lane.client) ? keyPseudonym(lane.client) : null;
  const refused = marks.filter((mark) => mark.outcome === 'banned' || mark.outcome === 'rate-limited').length;
  const texts = [
    name,
    ...(alias === null ? [] : [alias]),
    `${lane.plan}${limit > 0 ? ` · ${formatCount(limit)}/min, ${formatCount(lane.limits.perDay)}/day` : ''}`,
    `${formatCount(lane.requests.length)} request${lane.requests.length === 1 ? '' : 's'}${refused > 0 ? ` · ${formatCount(refused)}× 429` : ''}${lane.bans.length > 0 ? ` · ${lane.bans.length} ban${lane.bans.length === 1 ? '' : 's'}` : ''}`,
  ];
  return {
    lane,
    lines: texts.map((text, index) => ({
      text,
      width: textWidth(text, index === 0 ? nameSize : smallSize, index === 0),
    })),
    alias: alias !== null,
    marks,
    scaleMax,
    scaleLabel: formatCount(scaleMax),
    dense: false,
  };
}

/** A 429 is a ban's when its code says so or, without a code, when it falls inside a ban. */
function outcomeOf(request: Lane['requests'][number], bans: Lane['bans']): Outcome {
  if (request.status === 429) {
    if (request.code === 'key_banned') return 'banned';
    if (request.code === 'rate_limited') return 'rate-limited';
    return bans.some((ban) => request.atMs >= ban.fromMs && request.atMs < ban.toMs) ? 'banned' : 'rate-limited';
  }
  if (request.status >= 500) return 'server-error';
  if (request.status >= 400) return 'client-error';
  return 'ok';
}

function drawLane(
  lane: MeasuredLane,
  geometry: { laneTop: number; left: number; plotWidth: number; x: (ms: number) => number; from: number; to: number },
): string[] {
  const { laneTop, left, plotWidth, x, from, to } = geometry;
  const laneBottom = laneTop + laneHeight;
  const y = (perMinute: number) => laneBottom - lanePad - (perMinute / lane.scaleMax) * (laneHeight - 2 * lanePad);
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
    const baseline = limitY - 3 - tinySize < laneTop + 1 ? limitY + tinySize + 1 : limitY - 3;
    out.push(
      textElement(`budget ${formatCount(limit)}/min`, {
        x: left + plotWidth - 4,
        y: baseline,
        size: tinySize,
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
        size: tinySize,
        fill: '#6b7280',
        anchor: 'end',
        maxWidth: plotWidth - 8,
      }),
    );
  }

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

function outcomeColour(outcome: Outcome): string {
  return outcomeStyles.find((style) => style.outcome === outcome)!.colour;
}

/** The legend, wrapped to the picture's width: outcomes, ban, wait, budget, and what the height means. */
function drawLegend(context: { top: number; width: number; dense: boolean; aliases: boolean }): {
  elements: string[];
  bottom: number;
} {
  const items: { swatch: (x: number, y: number) => string; label: string }[] = [
    ...outcomeStyles.map(({ colour, label }) => ({
      swatch: (x: number, y: number) => `<path d="M${x + 6} ${y - 10}v10" stroke="${colour}" stroke-width="2"/>`,
      label,
    })),
    {
      swatch: (x, y) =>
        `<rect x="${x}" y="${y - 10}" width="12" height="11" fill="${banColour}" fill-opacity="0.18" stroke="${banColour}"/>`,
      label: 'ban',
    },
    {
      swatch: (x, y) =>
        `<path d="M${x} ${y - 5}H${x + 12}M${x + 12} ${y - 9}v8" fill="none" stroke="${outcomeColour('rate-limited')}" stroke-width="1.5"/>`,
      label: 'the wait Retry-After asked for',
    },
    {
      swatch: (x, y) =>
        `<line x1="${x}" y1="${y - 5}" x2="${x + 12}" y2="${y - 5}" stroke="#111827" stroke-dasharray="5 3"/>`,
      label: 'per-minute budget',
    },
  ];
  const notes = [
    'Height: the client’s requests in the 60 s up to each one.',
    ...(context.dense ? ['Dense stretches: the marks of one pixel column are merged into one stroke.'] : []),
    ...(context.aliases ? ['Grey under a name: the client’s pseudonym in the export.'] : []),
  ];
  const elements: string[] = [];
  const rowHeight = 18;
  let x = margin;
  let y = context.top;
  for (const item of items) {
    const itemWidth = 17 + textWidth(item.label, smallSize);
    if (x > margin && x + itemWidth > context.width - margin) {
      x = margin;
      y += rowHeight;
    }
    elements.push(
      item.swatch(x, y),
      textElement(item.label, {
        x: x + 17,
        y,
        size: smallSize,
        fill: '#374151',
        maxWidth: context.width - margin - x - 17,
      }),
    );
    x += itemWidth + 16;
  }
  for (const note of notes) {
    y += rowHeight;
    elements.push(
      textElement(note, { x: margin, y, size: smallSize, fill: '#4b5563', maxWidth: context.width - 2 * margin }),
    );
  }
  return { elements, bottom: y + 4 };
}

/**
 * One <text>, cut to `maxWidth` when given; a cut text sits in a group whose <title> holds the whole
 * (a tooltip in a browser, and what a screen reader reads).
 */
function textElement(
  text: string,
  style: {
    x: number;
    y: number;
    size: number;
    fill: string;
    bold?: boolean;
    anchor?: 'start' | 'middle' | 'end';
    maxWidth?: number;
    /** A white outline, for text over marks. */
    halo?: boolean;
  },
): string {
  const fitted =
    style.maxWidth === undefined ? { text, cut: false } : fitText(text, style.maxWidth, style.size, style.bold);
  const attributes = [
    `x="${fmt(style.x)}"`,
    `y="${fmt(style.y)}"`,
    ...(style.size === nameSize ? [] : [`font-size="${style.size}"`]),
    ...(style.bold ? ['font-weight="600"'] : []),
    ...(style.anchor !== undefined && style.anchor !== 'start' ? [`text-anchor="${style.anchor}"`] : []),
    `fill="${style.fill}"`,
    ...(style.halo ? ['stroke="#ffffff" stroke-width="3" paint-order="stroke"'] : []),
  ];
  const element = `<text ${attributes.join(' ')}>${escapeXml(fitted.text)}</text>`;
  return fitted.cut ? `<g><title>${escapeXml(text)}</title>${element}</g>` : element;
}

const tickSteps = [
  100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 172_800_000, 604_800_000, 1_209_600_000,
  2_592_000_000, 7_776_000_000, 31_536_000_000,
];

/** The smallest round step whose labels fit between two ticks with room to spare. */
function tickStep(span: number, plotWidth: number): number {
  for (const step of tickSteps) {
    const labelWidth = textWidth(tickLabel(0, step, span), tinySize);
    if ((step / span) * plotWidth >= labelWidth + 16) return step;
  }
  return Math.max(tickSteps[tickSteps.length - 1]!, span);
}

/** A tick's UTC time, as precise as the step needs. */
function tickLabel(ms: number, step: number, span: number): string {
  const iso = Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : new Date(0).toISOString();
  if (step < 1_000) return iso.slice(11, 23);
  if (step < minuteMs) return iso.slice(11, 19);
  if (step >= 86_400_000) return iso.slice(0, 10);
  if (span <= 86_400_000) return iso.slice(11, 16);
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

function fmt(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min;
}

function niceCeiling(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return Math.round(step * magnitude * 100) / 100;
  return 10 * magnitude;
}

function isoShort(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15
    ? new Date(ms).toISOString().replace('.000Z', 'Z').replace('T', ' ').replace('Z', '')
    : String(ms);
}

function formatCount(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
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
