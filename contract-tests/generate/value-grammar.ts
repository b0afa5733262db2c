import fc from 'fast-check';

/**
 * A grammar of string values that break servers: each class is a kind of input real backends
 * mishandle (escaping, trimming, Unicode, language keywords, numbers read as numbers). Every run
 * sends every class (the space is small); fast-check, on the run's seed, only picks which
 * variants of a class (`--seed` repeats the pick). Where a variant stands in the value matters
 * (whitespace around it, a keyword that is the whole value), `place` says so.
 */
export interface ValueClass {
  id: string;
  /** What a server gets wrong with it, for the report. */
  title: string;
  variants: readonly string[];
  /**
   * `suffix`: `<prefix>-<variant>` (the value still starts with the run's name prefix);
   * `whole`: the variant alone (a keyword or a number must be the whole value to be read as one);
   * `around`: `<variant><prefix><variant>` (leading and trailing).
   */
  place: 'suffix' | 'whole' | 'around';
}

export const valueClasses: readonly ValueClass[] = [
  { id: 'quotes', title: 'quotes', variants: [`'`, `"`, '`', `it's "quoted"`, `\\"`], place: 'suffix' },
  {
    id: 'backslashes',
    title: 'backslashes',
    variants: ['\\', '\\\\', '\\n', '\\u0041', 'C:\\pets\\'],
    place: 'suffix',
  },
  {
    id: 'html',
    title: 'HTML metacharacters',
    variants: ['<script>alert(1)</script>', '&amp;', '<b>bold</b>', '"><img src=x>', '&lt;&#60;'],
    place: 'suffix',
  },
  {
    id: 'sql',
    title: 'SQL metacharacters',
    variants: [`' OR '1'='1`, `'; DROP TABLE categories; --`, '%', '_', `\\'; --`],
    place: 'suffix',
  },
  {
    id: 'templates',
    title: 'format and template directives',
    variants: ['%s%n%d', '$' + '{7*7}', '{{7*7}}', '../../etc/passwd', '#{7*7}'],
    place: 'suffix',
  },
  {
    id: 'outer-whitespace',
    title: 'leading and trailing whitespace (space, tab, NBSP, ideographic space)',
    variants: [' ', '  ', '\t', '\u00a0', '\u3000'],
    place: 'around',
  },
  {
    id: 'inner-whitespace',
    title: 'inner whitespace (runs of spaces, tab, NBSP, zero-width space and joiner)',
    variants: ['a  b', 'a\tb', 'a\u00a0b', 'a\u200bb', 'a\u200db', 'a\ufeffb'],
    place: 'suffix',
  },
  {
    id: 'controls',
    title: 'control and separator characters',
    variants: ['\u0001', '\u001f', '\u007f', '\u0085', '\u2028', '\u2029', 'a\r\nb'],
    place: 'suffix',
  },
  {
    id: 'astral',
    title: 'astral characters (surrogate pairs)',
    variants: ['𝔘𝔫𝔦', '🐶', '𠜎𠜱', '🏳️‍🌈'],
    place: 'suffix',
  },
  {
    id: 'combining',
    title: 'combining characters (decomposed forms)',
    variants: ['Cafe\u0301', '\u1112\u1161\u11ab', 'n\u0303', 'a\u0308\u0304'],
    place: 'suffix',
  },
  {
    id: 'right-to-left',
    title: 'right-to-left text and direction overrides',
    variants: ['قطط', 'כלבים', '\u202egnp.exe', 'abc\u200fdef'],
    place: 'suffix',
  },
  {
    id: 'keywords',
    title: 'keywords and prototype members of common languages',
    variants: [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'prototype',
      'null',
      'None',
      'nil',
      'undefined',
      'true',
      'false',
      'NaN',
    ],
    place: 'whole',
  },
  {
    id: 'numeric',
    title: 'digits only and numeric-looking strings',
    variants: ['007', '1e3', '0x10', '-0', '1.0', '12345678901234567890', 'Infinity', '0'],
    place: 'whole',
  },
];

/** One value to send: its class, the variant and the value as placed. */
export interface GeneratedValue {
  classId: string;
  title: string;
  variant: string;
  value: string;
}

/**
 * The values of one run: for every class, `perClass` variants (all of them when `perClass` is at
 * least the class's size), picked by fast-check on `seed`, placed around `prefix`.
 *
 * @example generateValues('contract-test-ab12-v', 424242, 1).length // 13, one per class
 */
export function generateValues(prefix: string, seed: number, perClass: number): GeneratedValue[] {
  return valueClasses.flatMap((valueClass, index) => {
    const picked =
      perClass >= valueClass.variants.length
        ? valueClass.variants
        : fc.sample(fc.shuffledSubarray([...valueClass.variants], { minLength: perClass, maxLength: perClass }), {
            seed: seed + index,
            numRuns: 1,
          })[0]!;
    return picked.map((variant) => ({
      classId: valueClass.id,
      title: valueClass.title,
      variant,
      value: place(valueClass.place, variant, prefix),
    }));
  });
}

/**
 * Every variant of the classes whose variant must be the whole value (keywords, numbers), two to a category (the
 * name one, the description the next): the whole small space in every run, in half as many creations.
 *
 * @example wholeValuePairs()[0] // { classId: 'keywords', name: '__proto__', description: 'constructor' }
 */
export function wholeValuePairs(): { classId: string; name: string; description: string }[] {
  return valueClasses
    .filter((valueClass) => valueClass.place === 'whole')
    .flatMap((valueClass) =>
      valueClass.variants.flatMap((variant, index, variants) =>
        index % 2 === 0
          ? [{ classId: valueClass.id, name: variant, description: variants[index + 1] ?? variants[0]! }]
          : [],
      ),
    );
}

/**
 * The text of a description that holds every variant of a class placed inside a value (`suffix`), after
 * `prefix`: the name carries the run's pick, the description the whole class, so a default run sees them all.
 *
 * @example classSweep('contract-test-ab12-v-html', 'html') // 'contract-test-ab12-v-html <script>… &amp; <b>bold</b> …'
 */
export function classSweep(prefix: string, classId: string): string | undefined {
  const valueClass = valueClasses.find((candidate) => candidate.id === classId);
  if (valueClass === undefined || valueClass.place !== 'suffix') return undefined;
  return `${prefix} ${valueClass.variants.join(' ')}`;
}

/**
 * Pairs of names a server may wrongly take for one (interface section 4, createCategory rule 2: each creation
 * answers a new, unique id): the same name twice, and names that differ only in letter case, in an accent or in
 * a trailing space (a collation, a find-or-create, a unique index on a folded column).
 *
 * @example sameNamePairs('p')[1] // { label: 'letter case', first: 'p-Dog', second: 'p-dog' }
 */
export function sameNamePairs(prefix: string): { label: string; first: string; second: string }[] {
  return [
    { label: 'the same name', first: `${prefix}-same`, second: `${prefix}-same` },
    { label: 'letter case', first: `${prefix}-Dog`, second: `${prefix}-dog` },
    { label: 'an accent', first: `${prefix}-café`, second: `${prefix}-cafe` },
    { label: 'a trailing space', first: `${prefix}-cat`, second: `${prefix}-cat ` },
  ];
}

function place(where: ValueClass['place'], variant: string, prefix: string): string {
  if (where === 'whole') return variant;
  if (where === 'around') return `${variant}${prefix}${variant}`;
  return `${prefix}-${variant}`;
}
