/**
 * The rule x dimension matrix: every rule of the interface document against every way a server
 * can get it wrong. Each cell names the checks that judge it, or says why no check can. A check is
 * named by its id, or by the part before `:` for a family (`auth.missing-key` stands for
 * `auth.missing-key:listCategories` and the other operations). docs/contract-kit-matrix.md shows
 * this table (held equal to it by rule-matrix.test.ts); the coverage report fills in each cell
 * from a run (report/coverage-matrix.ts).
 */

export const dimensions = [
  {
    id: 'arithmetic',
    title: 'Exact arithmetic',
    means: 'the numbers are exactly right, not only in the right direction',
  },
  {
    id: 'time',
    title: 'Time',
    means:
      'every window the interface names (minute, day), the moment one rolls over, what a client sees after waiting what it was told',
  },
  { id: 'concurrency', title: 'Concurrency', means: 'what a burst sent in parallel gets, not only a sequence' },
  {
    id: 'statuses',
    title: 'Every status',
    means:
      'every status a server can emit, those its HTTP framework produces by itself included (404, 405, 413, 415, 406, HEAD, OPTIONS)',
  },
  {
    id: 'round-trip',
    title: 'Data round trip',
    means: 'what was sent, what the 201 returned and every later list are one thing',
  },
  {
    id: 'raw-input',
    title: 'Raw input',
    means:
      'inputs JSON.stringify cannot write: raw bytes, invalid UTF-8, odd or repeated property names, BOM, near-JSON, odd credentials and paths',
  },
  {
    id: 'order',
    title: 'Order of checks',
    means: 'which check a server applies first when several apply (key, limit, path, method, body)',
  },
  {
    id: 'operation-key',
    title: 'Operation x key',
    means: 'every operation with every key: the main key, the rate-limit key, none',
  },
  {
    id: 'negotiation',
    title: 'Content negotiation',
    means: 'Accept and Content-Type in their legal spellings and the foreign ones',
  },
] as const;

export type Dimension = (typeof dimensions)[number]['id'];

/** A cell: the checks that judge it, or why there is nothing to judge. */
type MatrixEntry = { checks: readonly string[] } | { reason: string };

export interface RuleRow {
  /** Where the rule stands in the interface document. */
  rule: string;
  /** The rule, in a line. */
  says: string;
  cells: Record<Dimension, MatrixEntry>;
}

const checks = (...ids: string[]): MatrixEntry => ({ checks: ids });
const reason = (text: string): MatrixEntry => ({ reason: text });
const noTime = reason('nothing in this rule depends on time');

export const ruleMatrix: readonly RuleRow[] = [
  {
    rule: '§1',
    says: 'request and response bodies are application/json',
    cells: {
      arithmetic: reason('the rule holds no number'),
      time: noTime,
      concurrency: checks('coverage.media-types'),
      statuses: checks('every.json-content-type', 'negotiation.error-accept-html'),
      'round-trip': checks('coverage.media-types'),
      'raw-input': checks('coverage.raw-json', 'coverage.body-shape'),
      order: reason(
        'which of 401 and 415 a body outside the interface meets first is open; the kit reports the status it gets',
      ),
      'operation-key': checks('every.json-content-type'),
      negotiation: checks('negotiation.accept', 'coverage.media-types'),
    },
  },
  {
    rule: '§1 JSON bodies',
    says: 'the service exposes JSON resources: a response labelled JSON (application/json or a +json type) has a body that parses as JSON, on every operation and status; only HEAD, 204, 205 and 304 have none',
    cells: {
      arithmetic: reason('the rule holds no number'),
      time: noTime,
      concurrency: checks('every.json-body-parses'),
      statuses: checks('every.json-body-parses'),
      'round-trip': reason(
        'whether a body parses at all; what a parsed body holds is the round trip of §4 (data.round-trip)',
      ),
      'raw-input': checks('every.json-body-parses'),
      order: reason('a body parses or not whichever check of the server produced the answer'),
      'operation-key': checks('every.json-body-parses'),
      negotiation: checks('every.json-body-parses', 'every.json-content-type'),
    },
  },
  {
    rule: '§4 listCategories',
    says: '200 with a JSON array of all available categories; 401 without a valid key',
    cells: {
      arithmetic: checks('list.all', 'create.listed'),
      time: checks('data.round-trip'),
      concurrency: checks('list.all', 'create.unique-ids-parallel'),
      statuses: checks('list.ok', 'auth.missing-key', 'http.head'),
      'round-trip': checks(
        'create.listed',
        'list.all',
        'data.round-trip',
        'values.list-order',
        'cache.conditional-list',
      ),
      'raw-input': checks('list.query-string', 'errors.unknown-path-near-miss'),
      order: checks('rate.every-request-counts'),
      'operation-key': checks('list.ok', 'auth.rate-limit-key', 'auth.invalid-key', 'data.round-trip'),
      negotiation: checks('negotiation.accept'),
    },
  },
  {
    rule: '§4 createCategory.1',
    says: 'a missing body, a missing name or invalid values -> 400 with an Error',
    cells: {
      arithmetic: reason('the rule holds no number (numbers sent in the wrong place are type cases: coverage.types)'),
      time: noTime,
      concurrency: checks('coverage.types', 'coverage.required'),
      statuses: checks(
        'validation.missing-body',
        'validation.missing-name',
        'validation.wrong-types',
        'coverage.required',
        'coverage.types',
        'errors.body-too-large',
      ),
      'round-trip': checks('data.refused-not-stored'),
      'raw-input': checks(
        'coverage.raw-json',
        'coverage.body-shape',
        'validation.malformed-json',
        'values.odd-key-spellings',
      ),
      order: checks('order.auth-before-validation', 'order.auth-before-parsing', 'rate.limit-before-validation'),
      'operation-key': reason(
        "validation is the operation's, whichever key sends the body; the rate-limit key's create is judged in auth.rate-limit-key",
      ),
      negotiation: checks('coverage.media-types'),
    },
  },
  {
    rule: '§4 createCategory.2',
    says: 'creation -> 201 with the Category and a unique id',
    cells: {
      arithmetic: checks('create.unique-ids-sequential', 'list.all', 'every.schema', 'values.same-name-again'),
      time: checks('data.round-trip'),
      concurrency: checks('create.unique-ids-parallel', 'list.all', 'values.parallel-burst'),
      statuses: checks('create.ok', 'create.name-only', 'coverage.valid-values', 'values.length-limit'),
      'round-trip': checks(
        'create.ok',
        'create.property',
        'coverage.valid-values',
        'data.round-trip',
        'values.grammar',
        'values.whole-values',
        'values.same-name-again',
      ),
      'raw-input': checks(
        'coverage.raw-json',
        'coverage.valid-values',
        'values.grammar',
        'values.whole-values',
        'values.length-limit',
        'values.extra-fields',
      ),
      order: reason(
        'a creation is what remains when key, limit, path, method and body pass: those orders are the rows of §5.3, §8.1 and createCategory.1',
      ),
      'operation-key': checks('auth.rate-limit-key'),
      negotiation: checks('coverage.media-types'),
    },
  },
  {
    rule: '§4 other operations',
    says: 'GET /pets/{petId} and GET /store/orders exist; their shapes are not shown',
    cells: {
      arithmetic: reason('their shapes are not shown'),
      time: noTime,
      concurrency: reason('their shapes are not shown: nothing to compare between parallel answers'),
      statuses: checks('other.exists', 'other.response'),
      'round-trip': reason('no pet or order is created through the interface'),
      'raw-input': checks('errors.unknown-path-near-miss'),
      order: checks('auth.missing-key'),
      'operation-key': checks('auth.valid-key', 'auth.rate-limit-key'),
      negotiation: reason('section 1 covers the bodies "described here"; these are not described'),
    },
  },
  {
    rule: '§5.1',
    says: 'the key is sent as Authorization: Bearer <API_KEY>',
    cells: {
      arithmetic: reason('the rule holds no number'),
      time: reason("a key's validity does not change during a run (issuing and revoking are not shown)"),
      concurrency: checks('auth.other-scheme'),
      statuses: checks('auth.other-scheme', 'auth.malformed-header'),
      'round-trip': reason('credentials create nothing'),
      'raw-input': checks(
        'auth.malformed-header',
        'auth.key-extra-token',
        'auth.scheme-prefixed',
        'auth.empty-token',
        'auth.key-in-query',
        'auth.key-in-cookie',
        'auth.key-in-other-header',
        'credentials.separator',
        'credentials.token',
        'credentials.field',
      ),
      order: checks('order.auth-before-parsing'),
      'operation-key': checks('auth.other-scheme', 'auth.scheme-case-insensitive', 'credentials.scheme'),
      negotiation: reason('credentials are not negotiated'),
    },
  },
  {
    rule: '§5.2',
    says: 'the key is required by every operation',
    cells: {
      arithmetic: reason('the rule holds no number'),
      time: reason("a key's validity does not change during a run"),
      concurrency: checks('auth.missing-key'),
      statuses: checks('auth.missing-key', 'other.exists', 'methods.without-key', 'methods.with-key'),
      'round-trip': checks('data.refused-not-stored'),
      'raw-input': checks('errors.unknown-path-near-miss', 'methods.pet-ids'),
      order: checks('order.auth-before-validation', 'methods.without-key'),
      'operation-key': checks('auth.missing-key', 'auth.valid-key', 'auth.rate-limit-key', 'methods.without-key'),
      negotiation: reason('credentials are not negotiated'),
    },
  },
  {
    rule: '§5.3',
    says: 'a missing or invalid key -> 401 with an Error',
    cells: {
      arithmetic: reason('the rule holds no number'),
      time: reason("a key's validity does not change during a run"),
      concurrency: checks('auth.invalid-key', 'auth.anonymous-burst'),
      statuses: checks('auth.missing-key', 'auth.invalid-key', 'auth.empty-token', 'cache.conditional-list'),
      'round-trip': checks('data.refused-not-stored'),
      'raw-input': checks('auth.key-plus-one', 'auth.key-minus-one', 'auth.key-case-changed'),
      order: checks('order.auth-before-validation', 'order.auth-before-parsing'),
      'operation-key': checks('auth.missing-key', 'auth.invalid-key'),
      negotiation: reason('a 401 body is an Error in JSON whatever was asked: every.json-content-type'),
    },
  },
  {
    rule: '§7',
    says: 'errors are JSON Error objects whose status repeats the HTTP status; 429 body not shown',
    cells: {
      arithmetic: checks('every.error-status'),
      time: noTime,
      concurrency: checks('every.error-shape'),
      statuses: checks(
        'every.error-shape',
        'errors.unknown-path',
        'errors.method-not-allowed',
        'errors.method-with-body',
        'errors.body-too-large',
        'http.options',
        'rate.429-body',
      ),
      'round-trip': reason('an error creates nothing: data.refused-not-stored (§4 createCategory.1)'),
      'raw-input': checks('errors.body-too-large', 'errors.unknown-path-near-miss', 'coverage.body-shape'),
      order: reason('which error wins is the order of the rules it comes from: §5.3, §8.1, createCategory.1'),
      'operation-key': checks('every.error-shape'),
      negotiation: checks('negotiation.error-accept-html', 'negotiation.accept'),
    },
  },
  {
    rule: '§8 headers',
    says: 'X-RateLimit-Limit, -Remaining and -Reset (a Unix timestamp) on every response',
    cells: {
      arithmetic: checks(
        'every.rate-headers-integers',
        'every.reset-within-window',
        'rate.remaining-exact',
        'rate.remaining-decreases',
      ),
      time: checks(
        'every.rate-reset-seconds',
        'every.date-header',
        'rate.reset-steady',
        'rate.reset-moves-at-rollover',
        'rate.after-retry-after',
      ),
      concurrency: checks('rate.parallel-distinct'),
      statuses: checks('every.rate-headers-present', 'rate.429-headers'),
      'round-trip': reason('the headers carry no data of a category'),
      'raw-input': checks('every.rate-headers-present'),
      order: checks('rate.every-request-counts'),
      'operation-key': checks('every.rate-headers-present', 'rate.independent-budgets'),
      negotiation: checks('every.rate-headers-present'),
    },
  },
  {
    rule: '§8 limits',
    says: 'requests per minute and per day by plan (Free 60 / 1,000, Pro 300 / 10,000, Business 1,000 / 100,000)',
    cells: {
      arithmetic: checks('rate.429', 'rate.remaining-exact', 'rate.day-window', 'every.reset-within-window'),
      time: checks('rate.after-retry-after', 'rate.day-window', 'rate.day-rollover'),
      concurrency: checks('rate.parallel-exact', 'rate.parallel-distinct'),
      statuses: checks('rate.429'),
      'round-trip': reason('a limit stores nothing'),
      'raw-input': reason('every request counts whatever it holds: rate.every-request-counts (order)'),
      order: checks('rate.every-request-counts', 'rate.limit-before-validation'),
      'operation-key': checks('rate.independent-budgets', 'rate.every-request-counts', 'auth.rate-limit-key'),
      negotiation: reason('a limit does not depend on the media type'),
    },
  },
  {
    rule: '§8.1',
    says: 'a request over the limit -> 429',
    cells: {
      arithmetic: checks('rate.429-only-when-exhausted', 'rate.parallel-exact'),
      time: checks('rate.429', 'rate.after-retry-after', 'rate.main-budget-spent'),
      concurrency: checks('rate.parallel-exact'),
      statuses: checks('rate.429', 'rate.429-headers', 'rate.429-body'),
      'round-trip': checks('rate.post-over-limit', 'data.refused-not-stored'),
      'raw-input': checks('rate.limit-before-validation'),
      order: checks('rate.limit-before-validation'),
      'operation-key': checks('rate.every-request-counts', 'rate.independent-budgets', 'rate.main-budget-spent'),
      negotiation: reason('a limit does not depend on the media type'),
    },
  },
  {
    rule: '§8.2',
    says: 'wait for Retry-After before retrying, back off exponentially',
    cells: {
      arithmetic: checks('rate.retry-after-matches-reset', 'rate.first-429-no-ban'),
      time: checks('rate.after-retry-after', 'rate.retry-after-future', 'rate.ban-temporary', 'rate.day-rollover'),
      concurrency: checks('rate.parallel-exact'),
      statuses: checks('rate.429-retry-after', 'every.429-retry-after'),
      'round-trip': reason('Retry-After carries no data of a category'),
      'raw-input': reason("Retry-After is the server's; the kit parses both legal forms (seconds, HTTP-date)"),
      order: reason('a 429 has no other check to come before or after'),
      'operation-key': checks('every.429-retry-after'),
      negotiation: reason('Retry-After does not depend on the media type'),
    },
  },
  {
    rule: '§8.3',
    says: 'a key that keeps sending after a 429 may be banned for a while',
    cells: {
      arithmetic: checks('rate.first-429-no-ban'),
      time: checks('rate.ban-temporary', 'rate.ban-watch'),
      concurrency: reason('a ban follows 429s one after the other; the parallel batch draws one 429 at most'),
      statuses: checks('rate.ban-announced', 'rate.ban-watch'),
      'round-trip': reason('a ban stores nothing'),
      'raw-input': reason('a ban depends on 429s, not on what the requests held'),
      order: reason(
        'whether and when a key is banned is open ("may"): rate.ban-announced and rate.ban-watch report it as INFO',
      ),
      'operation-key': reason('the kit provokes a ban only on the rate-limit key, never on the main key'),
      negotiation: reason('a ban does not depend on the media type'),
    },
  },
  {
    rule: '§9.2',
    says: 'an operation may be marked x-stability experimental or beta',
    cells: {
      arithmetic: reason(
        "no operation of the interface is marked; a marked operation's failures are warnings unless --strict (good-citizen test)",
      ),
      time: reason('no operation of the interface is marked'),
      concurrency: reason('no operation of the interface is marked'),
      statuses: reason('no operation of the interface is marked'),
      'round-trip': reason('no operation of the interface is marked'),
      'raw-input': reason('no operation of the interface is marked'),
      order: reason('no operation of the interface is marked'),
      'operation-key': reason('no operation of the interface is marked'),
      negotiation: reason('no operation of the interface is marked'),
    },
  },
  {
    rule: '§9.3',
    says: 'GET /pets/{petId} is deprecated and has a sunset date (not shown)',
    cells: {
      arithmetic: checks('other.deprecation'),
      time: reason('the sunset date is not shown, so whether it has passed cannot be judged'),
      concurrency: reason('a deprecation does not depend on what else is in flight'),
      statuses: checks('other.deprecation', 'every.not-deprecated'),
      'round-trip': reason('no pet is created through the interface'),
      'raw-input': checks('other.deprecation'),
      order: reason('the deprecation is announced (or not) on whatever answer the operation gives'),
      'operation-key': checks('every.not-deprecated'),
      negotiation: reason('the deprecation headers do not depend on the media type'),
    },
  },
];

/**
 * The checks a reference names: the id itself, or every `<reference>:<operation>` of a family.
 *
 * @example matchesReference('auth.missing-key:getPetById', 'auth.missing-key') // true
 */
export function matchesReference(checkId: string, reference: string): boolean {
  return checkId === reference || (checkId.startsWith(`${reference}:`) && !reference.includes(':'));
}

/**
 * The matrix as Markdown, for docs/contract-kit-matrix.md: an overview (a check, or a reason, per
 * cell) and a section per rule naming the checks or giving the reason.
 *
 * @example renderRuleMatrixMarkdown().startsWith('| Rule |') // true
 */
export function renderRuleMatrixMarkdown(): string {
  const lines = [
    `| Rule | ${dimensions.map((dimension) => dimension.title).join(' | ')} |`,
    `|---|${dimensions.map(() => '---').join('|')}|`,
  ];
  for (const row of ruleMatrix) {
    lines.push(
      `| [${row.rule}](#${anchor(row.rule)}) | ${dimensions.map(({ id }) => ('checks' in row.cells[id] ? `${(row.cells[id] as { checks: readonly string[] }).checks.length} check${(row.cells[id] as { checks: readonly string[] }).checks.length === 1 ? '' : 's'}` : 'reason')).join(' | ')} |`,
    );
  }
  for (const row of ruleMatrix) {
    lines.push(
      '',
      `### ${row.rule}`,
      '',
      `The interface: ${row.says}.`,
      '',
      '| Dimension | Checks, or why none |',
      '|---|---|',
    );
    for (const { id, title } of dimensions) {
      const entry = row.cells[id];
      lines.push(
        `| ${title} | ${'checks' in entry ? entry.checks.map((check) => `\`${check}\``).join(', ') : `*${entry.reason}*`} |`,
      );
    }
  }
  return lines.join('\n');
}

function anchor(rule: string): string {
  return rule
    .toLowerCase()
    .replace(/[^a-z0-9 .-]/g, '')
    .replace(/[ .]/g, (char) => (char === ' ' ? '-' : ''))
    .replace(/^-+/, '');
}
