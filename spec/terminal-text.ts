/**
 * Text for a terminal: whatever a server sent (bodies, header values, messages quoting them) has
 * its control characters escaped, so a body can neither clear the screen nor draw a fake verdict;
 * colour is added only by the kit, only when the stream is a terminal (NO_COLOR / FORCE_COLOR
 * honoured, https://no-color.org).
 */

// Everything that changes what a terminal shows beyond drawing a character: the C0 and C1 controls
// and DEL (ESC starts every escape sequence, CSI, OSC, DCS), the format characters (bidi controls,
// zero-width ones, tags that hide text), the line and paragraph separators, the combining grapheme
// joiner, and lone surrogates. The one list of the project: the mock's logger, `petstore-mock replay`
// and the contract kit all print through this module (.dependency-cruiser.cjs lets src import it).
// biome-ignore lint/suspicious/noMisleadingCharacterClass: U+034F is matched alone on purpose (it joins nothing here)
const unsafe = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034f]/gu;
// biome-ignore lint/suspicious/noMisleadingCharacterClass: as above
const unsafeButLineFeed = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034f]/gu;

function escapeCharacter(char: string): string {
  const code = char.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * Escapes every control and invisible format character (see above) as visible `\xNN` /
 * `\u{NNNN}` text. Newlines are escaped too: a value printed on a line stays on that line.
 *
 * @example sanitiseForTerminal('ok\u001b[2J') // 'ok\\x1b[2J'
 */
export function sanitiseForTerminal(text: string): string {
  return text.replace(unsafe, escapeCharacter);
}

/**
 * The same for a whole block of output the caller wrote line by line: its line feeds are kept, every
 * other control character is escaped. What came from outside is escaped with sanitiseForTerminal first.
 *
 * @example sanitiseLinesForTerminal('Replayed 2 requests\nStatuses: 200 x 2\u001b[2J\n') // 'Replayed 2 requests\nStatuses: 200 x 2\\x1b[2J\n'
 */
export function sanitiseLinesForTerminal(text: string): string {
  return text.replace(unsafeButLineFeed, escapeCharacter);
}

/** Should output to this stream be coloured? */
export function colourEnabled(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

const codes = {
  PASS: 32,
  FAIL: 31,
  SKIP: 33,
  INFO: 36,
  WARN: 35,
  INCONCLUSIVE: 33,
  CONFORMS: 32,
  'DOES NOT CONFORM': 31,
} as const;

/**
 * Paints a status word (PASS green, FAIL red, ...) when colour is on.
 *
 * @example paint('FAIL', 'FAIL', true) // '\u001b[31mFAIL\u001b[39m'
 */
export function paint(text: string, kind: keyof typeof codes, colour: boolean): string {
  return colour ? `\u001b[${codes[kind]}m${text}\u001b[39m` : text;
}
