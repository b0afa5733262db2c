import { expect } from 'vitest';

/** The tags the report itself writes (its page, its tables, the lab's SVG). */
const allowedTags = new Set(
  'html head meta title style script body main header section article footer h1 h2 h3 p ul ol li dl dt dd b small span a div pre button table thead tbody tr th td details summary wbr svg rect text line path g tspan circle polyline polygon'.split(
    ' ',
  ),
);

/**
 * Every `<` of the page opens or closes an allowed tag, each tag's attributes are well-formed
 * `name="value"` pairs (a value can hold no `"`, so none can end early), no attribute is an event
 * handler or an address to load from, and every link is http(s).
 */
export function expectOnlyOwnMarkup(page: string): void {
  const openings = page.match(/</g)?.length ?? 0;
  const tags = [...page.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)([^<>]*)>|<!doctype html>/gi)];
  expect(tags.length).toBe(openings);
  const wrong: string[] = [];
  for (const [tag, , name, attributes = ''] of tags) {
    if (name === undefined) continue;
    if (!allowedTags.has(name.toLowerCase())) wrong.push(`tag ${tag}`);
    if (!/^(\s+[a-zA-Z][\w:-]*(="[^"<>]*")?)*\s*\/?$/.test(attributes)) wrong.push(`attributes ${tag}`);
    for (const [, attribute, value] of attributes.matchAll(/\s([a-zA-Z][\w:-]*)(?:="([^"]*)")?/g)) {
      if (/^(on.*|src|srcset|poster|data|action|formaction|background|xlink:href|style)$/i.test(attribute!))
        wrong.push(`attribute ${tag}`);
      if (attribute === 'href' && !/^(https?|file):\/\//.test(value ?? '')) wrong.push(`href ${tag}`);
    }
  }
  expect(wrong).toEqual([]);
  expect(page.match(/<script>/g)).toHaveLength(1);
  expect(page.match(/<\/script>/g)).toHaveLength(1);
  expect(page.match(/<style>/g)).toHaveLength(1);
  expect(page.match(/<\/style>/g)).toHaveLength(1);
  const raw = /[\u2028\u2029\u202e\u200b\u0000\u001b]/.exec(page);
  expect(raw === null ? '' : page.slice(Math.max(0, raw.index - 80), raw.index + 20)).toBe('');
}
