import type { TimelineInput } from './lab-types.js';

export type { TimelineInput } from './lab-types.js';

/**
 * Draws recorded traffic as an SVG picture (one renderer for the replay's `--timeline` and the
 * dashboard): a lane per client with its requests binned over time as stacked bars coloured by
 * status class (2xx, 4xx other than 429, 429, 5xx), the client's per-minute limit as a line
 * against requests per minute, its ban periods shaded, virtual-time axis labels and a legend.
 * Binned, so 100,000 requests are a few hundred rectangles; deterministic (same input, same bytes);
 * every text escaped. Browser-safe.
 *
 * @example renderTimelineSvg({ from, to, clients: [{ client: 'demo-free', plan: 'free', limits, requests, bans: [] }] })
 */
export function renderTimelineSvg(input: TimelineInput, options: { width?: number; maxLanes?: number } = {}): string {
  const maxLanes =
    options.maxLanes !== undefined && Number.isFinite(options.maxLanes)
      ? Math.max(1, Math.floor(options.maxLanes))
      : 40;
  const width = clamp(Math.round(options.width ?? 1000), 480, 4000);
  const left = 190;
  const right = 20;
  const plotWidth = width - left - right;
  const laneHeight = 90;
  const laneGap = 18;
  const top = input.title ? 58 : 34;
  // The busiest lanes are drawn (in input order), so thousands of anonymous clients stay a readable picture.
  const busiest = new Set(
    [...input.clients]
      .map((lane, index) => ({ lane, index }))
      .sort((a, b) => b.lane.requests.length - a.lane.requests.length || a.index - b.index)
      .slice(0, maxLanes)
      .map((entry) => entry.lane),
  );
  const clients = input.clients.filter((lane) => busiest.has(lane));
  const hiddenLanes = input.clients.length - clients.length;
  const from = Number.isFinite(input.from) ? input.from : 0;
  const to = Number.isFinite(input.to) && input.to > from ? input.to : from + 60_000;
  const span = to - from;
  const bins = Math.max(1, Math.min(Math.floor(plotWidth / 4), 240));
  const binMs = span / bins;
  // The limit line speaks of requests per minute, so a bar is what the limiter saw: the requests of
  // the minute up to the bin's end (a sliding sum over the bins of that minute), or, when a bin is a
  // minute or longer, the bin's average per minute. Colours are the status mix of those requests.
  const binsPerMinute = Math.max(1, Math.round(60_000 / binMs));
  const perMinuteFactor = binMs >= 60_000 ? 60_000 / binMs : 1;
  const height = top + Math.max(1, clients.length) * (laneHeight + laneGap) + 56;
  const x = (ms: number) => left + ((ms - from) / span) * plotWidth;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="12">`,
  );
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  if (input.title)
    out.push(
      `<text x="${left}" y="24" font-size="16" font-weight="600" fill="#111827">${escapeXml(input.title)}</text>`,
    );
  out.push(
    `<text x="${left}" y="${top - 12}" fill="#4b5563">${escapeXml(`${isoShort(from)} → ${isoShort(to)} (${formatDuration(span)}, ${bins} bins of ${formatDuration(binMs)})${hiddenLanes > 0 ? `; the ${clients.length} busiest of ${input.clients.length} clients` : ''}`)}</text>`,
  );

  if (clients.length === 0) {
    out.push(`<text x="${left}" y="${top + 40}" fill="#6b7280">No requests.</text>`);
  }
  clients.forEach((lane, laneIndex) => {
    const laneTop = top + laneIndex * (laneHeight + laneGap);
    const laneBottom = laneTop + laneHeight;
    const counts = Array.from({ length: bins }, () => [0, 0, 0, 0]);
    for (const request of lane.requests) {
      if (!(request.atMs >= from && request.atMs <= to)) continue;
      const bin = Math.min(bins - 1, Math.floor((request.atMs - from) / binMs));
      const row = counts[bin]!;
      const statusIndex = statusClass(request.status);
      row[statusIndex] = row[statusIndex]! + 1;
    }
    if (binsPerMinute > 1) {
      const running = [0, 0, 0, 0];
      const raw = counts.map((bin) => [...bin]);
      counts.forEach((bin, index) => {
        for (let statusIndex = 0; statusIndex < 4; statusIndex += 1) {
          running[statusIndex] =
            running[statusIndex]! +
            raw[index]![statusIndex]! -
            (index >= binsPerMinute ? raw[index - binsPerMinute]![statusIndex]! : 0);
          bin[statusIndex] = running[statusIndex]!;
        }
      });
    }
    let peak = 0;
    for (const bin of counts) peak = Math.max(peak, bin[0]! + bin[1]! + bin[2]! + bin[3]!);
    const peakPerMinute = peak * perMinuteFactor;
    const limit = lane.limits.perMinute;
    // The scale shows the limit line when it is within reach of the traffic, else the traffic alone.
    const scaleMax = niceCeiling(Math.max(peakPerMinute, limit <= peakPerMinute * 4 ? limit * 1.1 : 0, 1));
    const y = (perMinute: number) => laneBottom - (perMinute / scaleMax) * (laneHeight - 6);

    out.push(`<g>`);
    out.push(
      `<rect x="${left}" y="${laneTop}" width="${plotWidth}" height="${laneHeight}" fill="#f9fafb" stroke="#e5e7eb"/>`,
    );
    for (const ban of lane.bans) {
      const start = Math.max(from, ban.fromMs);
      const end = Math.min(to, ban.toMs);
      if (end <= start) continue;
      out.push(
        `<rect x="${fmt(x(start))}" y="${laneTop}" width="${fmt(Math.max(1, x(end) - x(start)))}" height="${laneHeight}" fill="#7c3aed" fill-opacity="0.14"><title>${escapeXml(`banned ${isoShort(ban.fromMs)} → ${isoShort(ban.toMs)}`)}</title></rect>`,
      );
    }
    // One path per status class and lane (not a rect per bar): the file stays small with many bins.
    const barWidth = plotWidth / bins;
    const paths = ['', '', '', ''];
    counts.forEach((bin, binIndex) => {
      let stacked = 0;
      for (let statusIndex = 0; statusIndex < 4; statusIndex += 1) {
        const count = bin[statusIndex]!;
        if (count === 0) continue;
        const y0 = y(stacked * perMinuteFactor);
        stacked += count;
        const y1 = y(stacked * perMinuteFactor);
        const w = fmt(Math.max(0.5, barWidth - 0.5));
        paths[statusIndex] +=
          `M${fmt(left + binIndex * barWidth)} ${fmt(y1)}h${w}v${fmt(Math.max(0.5, y0 - y1))}h-${w}z`;
      }
    });
    paths.forEach((path, statusIndex) => {
      if (path !== '') out.push(`<path d="${path}" fill="${statusColours[statusIndex]}"/>`);
    });
    if (limit <= scaleMax) {
      const limitY = fmt(y(limit));
      out.push(
        `<line x1="${left}" y1="${limitY}" x2="${left + plotWidth}" y2="${limitY}" stroke="#111827" stroke-width="1" stroke-dasharray="5 3"/>`,
      );
      out.push(
        `<text x="${left + plotWidth - 4}" y="${fmt(y(limit) - 3)}" text-anchor="end" font-size="10" fill="#111827" stroke="#ffffff" stroke-width="3" paint-order="stroke">${escapeXml(`limit ${formatCount(limit)}/min`)}</text>`,
      );
    } else {
      out.push(
        `<text x="${left + plotWidth - 4}" y="${laneTop + 11}" text-anchor="end" font-size="10" fill="#6b7280">${escapeXml(`limit ${formatCount(limit)}/min (above the scale)`)}</text>`,
      );
    }
    out.push(
      `<text x="${left - 8}" y="${laneTop + 8}" text-anchor="end" font-size="9" fill="#6b7280">${escapeXml(`${formatCount(Math.round(scaleMax))}/min`)}</text>`,
    );
    out.push(`<text x="${left - 8}" y="${laneBottom}" text-anchor="end" font-size="9" fill="#6b7280">0</text>`);
    const total = lane.requests.length;
    out.push(
      `<text x="10" y="${laneTop + 30}" font-weight="600" fill="#111827">${escapeXml(truncate(lane.client, 22))}</text>`,
    );
    out.push(
      `<text x="10" y="${laneTop + 46}" fill="#4b5563">${escapeXml(truncate(`${lane.plan} · ${formatCount(lane.limits.perMinute)}/min, ${formatCount(lane.limits.perDay)}/day`, 28))}</text>`,
    );
    out.push(
      `<text x="10" y="${laneTop + 62}" fill="#4b5563">${escapeXml(`${formatCount(total)} requests${lane.bans.length > 0 ? `, ${lane.bans.length} ban${lane.bans.length === 1 ? '' : 's'}` : ''}`)}</text>`,
    );
    out.push(`</g>`);
  });

  // Time axis under the last lane.
  const axisY = top + Math.max(1, clients.length) * (laneHeight + laneGap) - laneGap + 4;
  out.push(`<line x1="${left}" y1="${axisY}" x2="${left + plotWidth}" y2="${axisY}" stroke="#9ca3af"/>`);
  const ticks = 6;
  for (let tick = 0; tick <= ticks; tick += 1) {
    const ms = from + (span * tick) / ticks;
    const tickX = fmt(x(ms));
    out.push(`<line x1="${tickX}" y1="${axisY}" x2="${tickX}" y2="${axisY + 4}" stroke="#9ca3af"/>`);
    const anchor = tick === 0 ? 'start' : tick === ticks ? 'end' : 'middle';
    out.push(
      `<text x="${tickX}" y="${axisY + 16}" text-anchor="${anchor}" font-size="10" fill="#4b5563">${escapeXml(tick === 0 ? isoShort(ms) : `+${formatDuration(ms - from)}`)}</text>`,
    );
  }
  // Legend.
  const legendY = axisY + 34;
  const legend: [string, string][] = [
    [statusColours[0]!, '2xx'],
    [statusColours[1]!, '4xx (not 429)'],
    [statusColours[2]!, '429'],
    [statusColours[3]!, '5xx'],
  ];
  let legendX = left;
  for (const [colour, label] of legend) {
    out.push(
      `<rect x="${legendX}" y="${legendY - 9}" width="10" height="10" fill="${colour}"/><text x="${legendX + 14}" y="${legendY}" fill="#374151">${label}</text>`,
    );
    legendX += 24 + label.length * 7;
  }
  out.push(
    `<rect x="${legendX}" y="${legendY - 9}" width="10" height="10" fill="#7c3aed" fill-opacity="0.25"/><text x="${legendX + 14}" y="${legendY}" fill="#374151">banned</text>`,
  );
  legendX += 70;
  out.push(
    `<line x1="${legendX}" y1="${legendY - 4}" x2="${legendX + 18}" y2="${legendY - 4}" stroke="#111827" stroke-dasharray="5 3"/><text x="${legendX + 22}" y="${legendY}" fill="#374151">per-minute limit (bars: requests in the minute up to then)</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

const statusColours = ['#16a34a', '#f59e0b', '#dc2626', '#1f2937'] as const;

/** 0: 2xx (and 1xx/3xx), 1: 4xx other than 429, 2: 429, 3: 5xx. */
function statusClass(status: number): number {
  if (status === 429) return 2;
  if (status >= 500) return 3;
  if (status >= 400) return 1;
  return 0;
}

/** Escapes text for SVG (XML) content and attributes; characters XML cannot carry become U+FFFD. */
export function escapeXml(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '\ufffd',
    )
    .replace(
      /[&<>"']/g,
      (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[character]!,
    );
}

function truncate(text: string, length: number): string {
  const characters = [...text];
  return characters.length > length ? `${characters.slice(0, length - 1).join('')}…` : text;
}

function fmt(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : min;
}

function niceCeiling(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

function isoShort(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString().replace('.000Z', 'Z') : String(ms);
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
