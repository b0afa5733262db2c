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
