import { banColour, margin, minuteMs, outcomeColour, outcomeStyles } from './timeline-lane.js';
import { fmt, fontSizes, textElement, textWidth } from './timeline-text.js';

// The timeline's frame: the time axis under the lanes and the legend under it.

/** The axis line and its ticks: UTC clock times at a round step, as many labels as fit without touching. */
export function drawAxis(geometry: {
  axisY: number;
  left: number;
  plotWidth: number;
  width: number;
  from: number;
  to: number;
  x: (ms: number) => number;
}): string[] {
  const { axisY, left, plotWidth, width, from, to, x } = geometry;
  const span = to - from;
  const out = [`<line x1="${left}" y1="${axisY}" x2="${left + plotWidth}" y2="${axisY}" stroke="#9ca3af"/>`];
  const step = tickStep(span, plotWidth);
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (let tick = Math.ceil(from / step) * step, count = 0; tick <= to && count < 1000; tick += step, count += 1) {
    const label = tickLabel(tick, step, span);
    const tickX = x(tick);
    const half = textWidth(label, fontSizes.tiny) / 2;
    out.push(`<line x1="${fmt(tickX)}" y1="${axisY}" x2="${fmt(tickX)}" y2="${axisY + 4}" stroke="#9ca3af"/>`);
    if (tickX - half < 2 || tickX + half > width - 2 || tickX - half < lastEnd + 8) continue;
    lastEnd = tickX + half;
    out.push(textElement(label, { x: tickX, y: axisY + 16, size: fontSizes.tiny, fill: '#4b5563', anchor: 'middle' }));
  }
  return out;
}

/** The legend, wrapped to the picture's width: outcomes, ban, wait, budget, and what the height means. */
export function drawLegend(context: {
  top: number;
  width: number;
  dense: boolean;
  aliases: boolean;
  /** A lane counts what a scenario had spent before its requests. */
  spent?: boolean;
}): {
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
    context.spent
      ? 'Height: the client’s requests in the 60 s up to each one, with what a scenario had spent of its minute before.'
      : 'Height: the client’s requests in the 60 s up to each one.',
    ...(context.dense ? ['Dense stretches: the marks of one pixel column are merged into one stroke.'] : []),
    ...(context.aliases ? ['Grey under a name: the client’s pseudonym in the export.'] : []),
  ];
  const elements: string[] = [];
  const rowHeight = 18;
  let x = margin;
  let y = context.top;
  for (const item of items) {
    const itemWidth = 17 + textWidth(item.label, fontSizes.small);
    if (x > margin && x + itemWidth > context.width - margin) {
      x = margin;
      y += rowHeight;
    }
    elements.push(
      item.swatch(x, y),
      textElement(item.label, {
        x: x + 17,
        y,
        size: fontSizes.small,
        fill: '#374151',
        maxWidth: context.width - margin - x - 17,
      }),
    );
    x += itemWidth + 16;
  }
  for (const note of notes) {
    y += rowHeight;
    elements.push(
      textElement(note, { x: margin, y, size: fontSizes.small, fill: '#4b5563', maxWidth: context.width - 2 * margin }),
    );
  }
  return { elements, bottom: y + 4 };
}

const tickSteps = [
  100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 172_800_000, 604_800_000, 1_209_600_000,
  2_592_000_000, 7_776_000_000, 31_536_000_000,
];

/** The smallest round step whose labels fit between two ticks with room to spare. */
function tickStep(span: number, plotWidth: number): number {
  for (const step of tickSteps) {
    const labelWidth = textWidth(tickLabel(0, step, span), fontSizes.tiny);
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
