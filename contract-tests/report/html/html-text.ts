import { maskCredentialPatterns } from '../../../spec/credential-masking.js';
import { sanitiseForTerminal, sanitiseLinesForTerminal } from '../../../spec/terminal-text.js';

/**
 * The HTML report's one way to write a text: every string of the report (a server's bodies,
 * headers and ids among them) passes here before it reaches the page. Credentials left in it are
 * masked by the masking step's patterns (the run has already masked its own keys, decision 032),
 * control and invisible format characters become visible escapes (`\u{2028}`, bidi overrides, as
 * in the terminal), and the five HTML-special characters become character references, so no text
 * can open a tag, close the page's <style>, leave an attribute or start a script.
 */

const references: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (char) => references[char]!);
}

/**
 * A text for an element's content or an attribute value (quoted with `"`).
 *
 * @example html('<b>"x"</b>\u2028') // '&lt;b&gt;&quot;x&quot;&lt;/b&gt;\\u{2028}'
 */
export function html(text: string): string {
  return escapeMarkup(visible(text));
}

/**
 * The same text before markup escaping, for a writer that escapes it itself (the timeline's SVG).
 *
 * @example visible('a\u2028b') // 'a\\u{2028}b'
 */
export function visible(text: string): string {
  return sanitiseForTerminal(maskCredentialPatterns(text));
}

/**
 * A block of lines (a curl with its printf, a log): the same, line feeds kept.
 *
 * @example htmlLines('a\nb\u001b') // 'a\nb\\x1b'
 */
export function htmlLines(text: string): string {
  return escapeMarkup(sanitiseLinesForTerminal(maskCredentialPatterns(text)));
}

/**
 * A link's address as an attribute value: only http(s) and file URLs (the interface document's
 * section, an RFC), never `javascript:` or `data:`; undefined for anything else.
 *
 * @example safeHref('https://www.rfc-editor.org/rfc/rfc9110#section-11') // 'https://www.rfc-editor.org/rfc/rfc9110#section-11'
 */
export function safeHref(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:' && url.protocol !== 'file:') return undefined;
  return escapeMarkup(url.href);
}

/** A CSS class for a status word: the known words only (`s-fail`), anything else `s-other`. */
export function statusClass(status: string): string {
  const known = ['PASS', 'FAIL', 'SKIP', 'INFO', 'WARN', 'INCONCLUSIVE', 'n/a', 'not run'];
  return known.includes(status) ? `s-${status.toLowerCase().replace(/[^a-z]/g, '')}` : 's-other';
}

/** An element id from an index: ids never come from a server's text. */
export function elementId(prefix: string, index: number): string {
  return `${prefix}-${index + 1}`;
}
