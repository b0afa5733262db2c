/**
 * Inputs built to be as expensive as their size allows: the shapes that make parsers go quadratic
 * (many keys, many anchors and aliases, deep nesting, long lines, long runs of one character, many
 * small items). Used by the parsing-cost tests (test/hardening/input-parsing.test.ts) and the
 * parsing bench (bench/parsing-bench.ts), which feed each shape at an input's size limit.
 */

/** Repeats `piece(i)` until `bytes` characters are reached (all pieces here are ASCII: characters are bytes). */
function fill(bytes: number, piece: (index: number) => string, separator = '\n', head = '', tail = ''): string {
  const parts: string[] = [];
  let length = head.length + tail.length;
  for (let index = 0; ; index += 1) {
    const next = piece(index);
    if (length + next.length + separator.length > bytes) break;
    parts.push(next);
    length += next.length + separator.length;
  }
  return `${head}${parts.join(separator)}${tail}`;
}

/** A YAML (or JSON) text of at most `bytes` bytes, shaped to cost a YAML reader the most it can. */
export interface TextShape {
  name: string;
  make(bytes: number): string;
}

/** Every YAML worst case: each is valid YAML, or YAML that fails only at its end (the reader must still not crash or crawl). */
export const yamlShapes: readonly TextShape[] = [
  { name: 'many top-level keys', make: (bytes) => fill(bytes, (i) => `k${i}: ${i}`) },
  { name: 'many keys in one flow mapping', make: (bytes) => fill(bytes - 2, (i) => `k${i}: ${i}`, ', ', '{', '}') },
  {
    name: 'one key repeated (a duplicate at the end)',
    make: (bytes) => `${fill(bytes - 10, (i) => `k${i}: 1`)}\nk0: 2`,
  },
  { name: 'many list items', make: (bytes) => fill(bytes, () => '  - 1', '\n', 'keys:\n') },
  { name: 'a long flow sequence', make: (bytes) => fill(bytes - 2, () => '1', ',', '[', ']') },
  { name: 'many anchors, each aliased once', make: (bytes) => fill(bytes, (i) => `a${i}: &a${i} ${i}\nb${i}: *a${i}`) },
  {
    name: 'a chain of aliases of aliases',
    make: (bytes) => fill(bytes, (i) => (i === 0 ? 'a0: &a0 [0]' : `a${i}: &a${i} [*a${i - 1}]`)),
  },
  {
    name: 'one anchor aliased everywhere',
    make: (bytes) => fill(bytes, (i) => (i === 0 ? 'a: &a [1, 2, 3]' : `b${i}: *a`)),
  },
  {
    name: 'a large mapping aliased 99 times where a list of mappings is read',
    make: (bytes) => `description: &b\n${fill(bytes - 600, (i) => `  k${i}: 1`)}\nkeys: [${'*b, '.repeat(98)}*b]`,
  },
  {
    name: 'a large list aliased 99 times in a list',
    make: (bytes) =>
      `description: &b\n${fill(bytes - 600, (i) => `  - {name: c${i}}`)}\ncategories: [${'*b, '.repeat(98)}*b]`,
  },
  {
    name: 'deeply nested flow sequences',
    make: (bytes) => `${'['.repeat(Math.floor(bytes / 2))}${']'.repeat(Math.floor(bytes / 2))}`,
  },
  {
    name: 'deeply nested flow sequences in a known field',
    make: (bytes) => `description: ${'['.repeat(Math.floor(bytes / 2) - 8)}${']'.repeat(Math.floor(bytes / 2) - 8)}`,
  },
  {
    name: 'deeply nested flow mappings',
    make: (bytes) => `${'{a: '.repeat(Math.floor(bytes / 5))}1${'}'.repeat(Math.floor(bytes / 5))}`,
  },
  { name: 'deeply nested block mappings', make: (bytes) => fill(bytes, (i) => `${' '.repeat(i)}k:`) },
  { name: 'unclosed flow sequences', make: (bytes) => '[a, '.repeat(Math.floor(bytes / 4)) },
  { name: 'one long plain line', make: (bytes) => `description: ${'word '.repeat(Math.floor((bytes - 14) / 5))}` },
  {
    name: 'one long double-quoted line of escapes',
    make: (bytes) => `description: "${'\\n\\t'.repeat(Math.floor((bytes - 16) / 4))}"`,
  },
  {
    name: 'one long single-quoted line of quotes',
    make: (bytes) => `description: '${"''".repeat(Math.floor((bytes - 16) / 2))}'`,
  },
  {
    name: 'a folded scalar of many short lines',
    make: (bytes) => `description: >\n${'  x\n\n'.repeat(Math.floor((bytes - 16) / 5))}`,
  },
  {
    name: 'a quoted scalar over many lines',
    make: (bytes) => `description: "${'a\n '.repeat(Math.floor((bytes - 16) / 3))}"`,
  },
  { name: 'an unclosed quoted scalar', make: (bytes) => `description: "${'x'.repeat(bytes - 16)}` },
  { name: 'many comment lines', make: (bytes) => `${'#c\n'.repeat(Math.floor((bytes - 8) / 3))}a: 1` },
  { name: 'many blank lines in a block scalar', make: (bytes) => `description: |\n${'\n'.repeat(bytes - 20)}  x` },
  { name: 'many explicit keys', make: (bytes) => fill(bytes, (i) => `? k${i}`) },
  { name: 'many tags', make: (bytes) => fill(bytes, () => '- !!str a') },
  { name: 'many documents', make: (bytes) => '---\n'.repeat(Math.floor(bytes / 4)) },
  { name: 'a long run of spaces', make: (bytes) => `a: 1${' '.repeat(bytes - 4)}` },
  { name: 'a long run of colons', make: (bytes) => `a${':'.repeat(bytes - 1)}` },
];

/** JSON worst cases (a JSON text is YAML too, and the controls read JSON bodies). */
export const jsonShapes: readonly TextShape[] = [
  { name: 'many keys', make: (bytes) => fill(bytes - 2, (i) => `"k${i}":${i}`, ',', '{', '}') },
  {
    name: 'deeply nested arrays',
    make: (bytes) => `${'['.repeat(Math.floor(bytes / 2))}${']'.repeat(Math.floor(bytes / 2))}`,
  },
  {
    name: 'deeply nested objects in a known field',
    make: (bytes) =>
      `{"description":${'{"a":'.repeat(Math.floor((bytes - 20) / 6))}1${'}'.repeat(Math.floor((bytes - 20) / 6))}}`,
  },
  {
    name: 'one long string of escapes',
    make: (bytes) => `{"description":"${'\\u0041'.repeat(Math.floor((bytes - 20) / 6))}"}`,
  },
  {
    name: 'many categories',
    make: (bytes) => fill(bytes - 20, (i) => `{"name":"c${i}"}`, ',', '{"categories":[', ']}'),
  },
  {
    name: 'many keys with a plan',
    make: (bytes) => fill(bytes - 20, (i) => `{"key":"k-${i}","plan":"pro"}`, ',', '{"keys":[', ']}'),
  },
];

/** An export line of the mock's request log (GET /__mock/requests?format=jsonl), for replay. */
export function exportLine(index: number, overrides: Record<string, unknown> = {}): string {
  const time = new Date(Date.UTC(2026, 0, 1) + index * 10).toISOString();
  return JSON.stringify({
    v: 1,
    time,
    method: 'GET',
    url: '/v1/categories',
    client: `client-${(index % 4096).toString(16).padStart(12, '0')}`,
    kind: 'key',
    auth: 'key',
    plan: 'free',
    limits: { perMinute: 60, perDay: 1000 },
    status: 200,
    code: null,
    operationId: 'listCategories',
    prefer: null,
    contentType: null,
    body: null,
    ...overrides,
  });
}

/** A HAR 1.2 entry of a GET with `headers` extra headers. */
export function harEntry(
  index: number,
  options: { key?: string; headers?: number; url?: string; time?: string } = {},
): Record<string, unknown> {
  const headers = [{ name: 'Authorization', value: `Bearer ${options.key ?? 'demo-free'}` }];
  for (let extra = 0; extra < (options.headers ?? 0); extra += 1) headers.push({ name: 'X-Same', value: 'v' });
  return {
    startedDateTime: options.time ?? new Date(Date.UTC(2026, 0, 1) + index * 10).toISOString(),
    request: { method: 'GET', url: options.url ?? 'http://api.example/v1/categories', headers },
    response: { status: 200 },
  };
}

/** A HAR document of `entries`, as one line (what most tools write). */
export function harDocument(entries: readonly Record<string, unknown>[]): string {
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } });
}

/** A replay worst case: JSON lines and HAR files have their own size bounds. */
export interface ReplayShape extends TextShape {
  format: 'json lines' | 'har';
}

/** Replay worst cases: text of at most `bytes` bytes. */
export const replayShapes: readonly ReplayShape[] = [
  { format: 'json lines', name: 'JSON lines, one request each', make: (bytes) => fill(bytes, (i) => exportLine(i)) },
  {
    format: 'json lines',
    name: 'JSON lines, each a new client',
    make: (bytes) => fill(bytes, (i) => exportLine(i, { client: `client-${i.toString(16).padStart(12, '0')}` })),
  },
  {
    // The most lines a file holds: the texts that read as null when absent left out (~180,000 in 32 MiB).
    format: 'json lines',
    name: 'JSON lines, the shortest valid',
    make: (bytes) =>
      fill(bytes, (i) =>
        exportLine(i, {
          url: '/',
          code: undefined,
          operationId: undefined,
          prefer: undefined,
          contentType: undefined,
          body: undefined,
        }),
      ),
  },
  {
    format: 'json lines',
    name: 'JSON lines with the longest URLs',
    make: (bytes) => fill(bytes, (i) => exportLine(i, { url: `/v1/categories?q=${'a'.repeat(8_000)}` })),
  },
  { format: 'har', name: 'HAR entries, one request each', make: (bytes) => harOfSize(bytes, (i) => harEntry(i)) },
  {
    format: 'har',
    name: 'HAR entries, each a new key',
    make: (bytes) => harOfSize(bytes, (i) => harEntry(i, { key: `key-${i}` })),
  },
  {
    format: 'har',
    name: 'HAR entries with a thousand headers of one name',
    make: (bytes) => harOfSize(bytes, (i) => harEntry(i, { headers: 1_000 })),
  },
  {
    format: 'har',
    name: 'one HAR entry with a huge URL',
    make: (bytes) =>
      harDocument([
        harEntry(0, { url: `http://api.example/v1/categories?q=${'%41'.repeat(Math.floor((bytes - 400) / 3))}` }),
      ]),
  },
  {
    format: 'har',
    name: 'a HAR nested deeply where an entry is expected',
    make: (bytes) =>
      `{"log":{"entries":[${'['.repeat(Math.floor((bytes - 40) / 2))}${']'.repeat(Math.floor((bytes - 40) / 2))}]}}`,
  },
  {
    format: 'har',
    name: 'a HAR pretty-printed over many lines',
    make: (bytes) => JSON.stringify(JSON.parse(harOfSize(Math.floor(bytes / 1.8), (i) => harEntry(i))), null, 1),
  },
];

/** A HAR document of as many entries as fit in `bytes`. */
function harOfSize(bytes: number, entry: (index: number) => Record<string, unknown>): string {
  const entries: Record<string, unknown>[] = [];
  let length = harDocument([]).length;
  for (let index = 0; ; index += 1) {
    const next = entry(index);
    length += JSON.stringify(next).length + 1;
    if (length > bytes) break;
    entries.push(next);
  }
  return harDocument(entries);
}
