/**
 * Everything that can change what a terminal shows beyond printing a character: every C0 control,
 * DEL, every C1 control, whole escape sequences (CSI, OSC window title and hyperlink, DCS, cursor
 * moves), the bidi controls and the invisible format characters that spoof text, and the line and
 * paragraph separators. Fed through each command's output paths by test/hardening/terminal-output.test.ts.
 */
const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, index) => String.fromCodePoint(from + index));

const controlCharacters = [...range(0x00, 0x1f), '\u007f', ...range(0x80, 0x9f)];

const escapeSequences = [
  '\u001b[2J\u001b[H', // clear the screen, cursor home
  '\u001b]0;pwned\u0007', // window title (OSC 0, BEL)
  '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\', // a hyperlink (OSC 8, ST)
  '\u001b[1A\u001b[2K', // cursor up, erase the line: overwrite what was printed
  '\u001bP+q544e\u001b\\', // DCS
  '\u009b31m', // C1 CSI
  '\u009d0;pwned\u009c', // C1 OSC ... ST
];

const spoofingCharacters = [
  ...range(0x202a, 0x202e), // LRE, RLE, PDF, LRO, RLO
  ...range(0x2066, 0x2069), // LRI, RLI, FSI, PDI
  '\u200e',
  '\u200f',
  '\u061c', // LRM, RLM, ALM
  ...range(0x200b, 0x200d),
  '\u2060',
  '\ufeff', // zero-width space, non-joiner, joiner, word joiner, BOM
  ...range(0x2061, 0x2064),
  ...range(0x206a, 0x206f), // invisible operators, deprecated format controls
  '\u00ad',
  '\u180e',
  '\u034f', // soft hyphen, Mongolian vowel separator, combining grapheme joiner
  ...range(0xfff9, 0xfffb), // interlinear annotation
  '\u{e0001}',
  '\u{e0041}',
  '\u{e007f}', // tag characters (text hidden in plain sight)
  '\u2028',
  '\u2029', // line and paragraph separators
];

/** A line break and a fake verdict first: a raw newline would let a recorded value draw a line of its own. */
const fakeLine = 'Verdict: ok, all clear';

export const terminalPayload = `\n${fakeLine}${controlCharacters.join('')}${escapeSequences.join('')}${spoofingCharacters.join('')}x`;

/** What must never be written raw: any control or format character but the line feeds the command writes itself. */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: U+034F is matched alone on purpose
const raw = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u034f\u180e\ufff9-\ufffb]/u;

/**
 * The problems of a command's output: a raw control or format character (other than the line
 * feeds between lines), or a line that a recorded value drew on its own.
 */
export function terminalProblems(output: string): string[] {
  const problems: string[] = [];
  output.split('\n').forEach((line, index) => {
    const found = raw.exec(line);
    if (found)
      problems.push(
        `line ${index + 1}: raw U+${found[0].codePointAt(0)!.toString(16).padStart(4, '0')} in ${JSON.stringify(line.slice(Math.max(0, found.index - 20), found.index + 20))}`,
      );
    if (line.startsWith(fakeLine))
      problems.push(`line ${index + 1}: a line drawn by the input: ${JSON.stringify(line.slice(0, 40))}`);
  });
  return problems;
}
