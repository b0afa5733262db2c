/**
 * Text for the timeline SVG: escaping, and widths estimated without a browser. The SVG is drawn where
 * no font can be measured (the replay CLI, the mock), so widths are over-estimated per character from
 * the widest common sans-serif (DejaVu Sans, what Debian's `system-ui` resolves to): a label laid out by
 * these numbers never overlaps its neighbour or runs out of the picture, at the price of some air.
 */

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

const narrow = new Set([..." !'(),.:;[]`|ijlrtfI·"]);
const wide = new Set([...'mwMW@%&…→—']);

/** Width of one character in ems, rounded up (DejaVu Sans: digits 0.64, lowercase up to 0.63, capitals up to 1.0). */
function characterEms(character: string): number {
  if (narrow.has(character)) return 0.42;
  if (wide.has(character)) return 1.02;
  const code = character.codePointAt(0)!;
  if (code < 0x80) return character >= 'A' && character <= 'Z' ? 0.8 : 0.68;
  // East Asian scripts, symbols and emoji are about a square each; other letters as capitals.
  return code >= 0x2e80 ? 1.3 : 0.85;
}

/** An upper bound of the width of `text` drawn at `fontSize` px (bold is about 10% wider). */
export function textWidth(text: string, fontSize: number, bold = false): number {
  let ems = 0;
  for (const character of text) ems += characterEms(character);
  return ems * fontSize * (bold ? 1.12 : 1);
}

/**
 * `text` cut to fit `maxWidth` px, ending in an ellipsis when cut (whole code points, never half a
 * surrogate pair); `cut` says whether it was, so the caller can attach the full text as a <title>.
 */
export function fitText(
  text: string,
  maxWidth: number,
  fontSize: number,
  bold = false,
): { text: string; cut: boolean } {
  if (textWidth(text, fontSize, bold) <= maxWidth) return { text, cut: false };
  const characters = [...text];
  const budget = maxWidth - textWidth('…', fontSize, bold);
  let width = 0;
  let kept = 0;
  while (kept < characters.length) {
    const next = textWidth(characters[kept]!, fontSize, bold);
    if (width + next > budget) break;
    width += next;
    kept += 1;
  }
  return { text: `${characters.slice(0, kept).join('').trimEnd()}…`, cut: true };
}

/** Font sizes (px) of the timeline: client names, other labels, axis and scale labels. */
export const fontSizes = { name: 12, small: 11, tiny: 10 } as const;

/**
 * One <text>, cut to `maxWidth` when given; a cut text sits in a group whose <title> holds the whole
 * (a tooltip in a browser, and what a screen reader reads).
 */
export function textElement(
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
    ...(style.size === fontSizes.name ? [] : [`font-size="${style.size}"`]),
    ...(style.bold ? ['font-weight="600"'] : []),
    ...(style.anchor !== undefined && style.anchor !== 'start' ? [`text-anchor="${style.anchor}"`] : []),
    `fill="${style.fill}"`,
    ...(style.halo ? ['stroke="#ffffff" stroke-width="3" paint-order="stroke"'] : []),
  ];
  const element = `<text ${attributes.join(' ')}>${escapeXml(fitted.text)}</text>`;
  return fitted.cut ? `<g><title>${escapeXml(text)}</title>${element}</g>` : element;
}

/** A coordinate with one decimal: small files, no visible difference. */
export function fmt(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

export function formatCount(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A virtual time as `YYYY-MM-DD HH:MM:SS` (UTC), or the number when it is no date. */
export function isoShort(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15
    ? new Date(ms).toISOString().replace('.000Z', 'Z').replace('T', ' ').replace('Z', '')
    : String(ms);
}
