/**
 * Text for a terminal: whatever a server sent (bodies, header values, messages quoting them) has
 * its control characters escaped, so a body can neither clear the screen nor draw a fake verdict;
 * colour is added only by the kit, only when the stream is a terminal (NO_COLOR / FORCE_COLOR
 * honoured, https://no-color.org).
 */

/**
 * Escapes C0 and C1 control characters, DEL and the Unicode bidi/format controls (which can
 * reorder what a terminal shows) as visible `\xNN` / `\u{NNNN}` text. Newlines are escaped too:
 * one evidence line stays one line.
 *
 * @example sanitiseForTerminal('ok\u001b[2J') // 'ok\\x1b[2J'
 */
export function sanitiseForTerminal(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** Should output to this stream be coloured? */
export function colourEnabled(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

const codes = { PASS: 32, FAIL: 31, SKIP: 33, INFO: 36, WARN: 35, INCONCLUSIVE: 33, CONFORMS: 32, 'DOES NOT CONFORM': 31 } as const;

/**
 * Paints a status word (PASS green, FAIL red, ...) when colour is on.
 *
 * @example paint('FAIL', 'FAIL', true) // '\u001b[31mFAIL\u001b[39m'
 */
export function paint(text: string, kind: keyof typeof codes, colour: boolean): string {
  return colour ? `\u001b[${codes[kind]}m${text}\u001b[39m` : text;
}
