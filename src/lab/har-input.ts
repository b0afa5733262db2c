import type * as z from 'zod';
import { onFirstUse } from '../../spec/zod-module.js';
import { isReplayableTime } from './export-line-schema.js';
import type { LabLimits } from './lab-types.js';
import {
  displayKey,
  limitsOfPlan,
  ReplayInputError,
  type ReplayInputOptions,
  type ReplayRequest,
  recordingRefused,
} from './replay-request.js';

// A HAR 1.2 recording (a browser's or a proxy's, real keys), read entry by entry through the schema of
// the part the replay uses; anything else an entry holds is the recording tool's and is ignored.

/** What each part of an entry must be: the refusal's words (`log.entries[3].request.url: expected a URL`). */
const harEntryExpects: Record<string, string> = {
  '': 'an entry object',
  startedDateTime: 'an ISO date-time in the years 0001 to 9999',
  request: 'an object',
  'request.method': 'an HTTP method',
  'request.url': 'a URL',
  'request.headers': 'an array of { name, value }',
  'request.headers[]': 'an array of { name, value } strings',
  'request.postData': 'an object',
  'request.postData.text': 'a string',
};

function isUrl(text: string): boolean {
  try {
    new URL(text, 'http://replay.invalid');
    return true;
  } catch {
    return false;
  }
}

/** The part of a HAR 1.2 entry the replay reads. */
const harEntrySchema = onFirstUse((z) =>
  z.object({
    startedDateTime: z.string().refine(isReplayableTime),
    request: z.object({
      method: z.string().refine((method) => /^[A-Z]{1,20}$/.test(method.toUpperCase())),
      url: z.string().refine(isUrl),
      headers: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
      postData: z.object({ text: z.string().optional(), mimeType: z.unknown() }).nullable().optional(),
    }),
    response: z.unknown(),
  }),
);
type HarEntry = z.output<ReturnType<typeof harEntrySchema>>;

function readHarEntry(raw: unknown, where: string): HarEntry {
  const result = harEntrySchema().safeParse(raw);
  if (result.success) return result.data;
  const path = result.error.issues[0]!.path;
  const index = path.findIndex((segment) => typeof segment === 'number');
  const field = (index === -1 ? path : path.slice(0, index)).join('.');
  const expected = harEntryExpects[index === -1 ? field : `${field}[]`] ?? 'a HAR 1.2 entry';
  throw recordingRefused(`${where}.${field}: expected ${expected}`);
}

/** The client's headers, lower-case names, repeated ones joined; the recording tool's own left out. */
function harHeaders(entry: HarEntry): Record<string, string> {
  // No prototype: a header named `constructor` or `__proto__` is a header, not Object's member.
  const headers: Record<string, string> = Object.create(null);
  for (const { name, value } of entry.request.headers ?? []) {
    const lower = name.toLowerCase();
    // HTTP/2 pseudo-headers and hop-by-hop fields are the recording tool's, not the client's.
    if (lower.startsWith(':') || lower === 'connection' || lower === 'content-length' || lower === 'host') continue;
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  const mimeType = entry.request.postData?.mimeType;
  if (typeof mimeType === 'string' && mimeType !== '' && headers['content-type'] === undefined)
    headers['content-type'] = mimeType;
  return headers;
}

/** How the recording's keys map to plans: `--key`, the demo keys, `--default-plan`. */
class HarKeyPlans {
  private readonly resolved = new Map<string, { plan: string; limits: LabLimits }>();
  private readonly defaultPlan: { plan: string; limits: LabLimits } | undefined;
  readonly demoKeys: Readonly<Record<string, string>>;
  /** Keys the recording uses that nothing maps: refused together once every entry is read. */
  readonly unmapped = new Set<string>();

  constructor(private readonly options: ReplayInputOptions) {
    this.demoKeys = options.demoKeys ?? {};
    for (const [key, plan] of options.keyPlans ?? [])
      this.resolved.set(key, limitsOfPlan(plan, options.plans, `--key ${displayKey(key, this.demoKeys)}`));
    if (options.defaultPlan !== undefined)
      this.defaultPlan = limitsOfPlan(options.defaultPlan, options.plans, '--default-plan');
  }

  /** The key's plan and limits, or null (anonymous; an unknown key is noted). */
  planOf(key: string | null): { plan: string; limits: LabLimits } | null {
    if (key === null) return null;
    const mapping =
      this.resolved.get(key) ??
      (Object.hasOwn(this.demoKeys, key)
        ? limitsOfPlan(this.demoKeys[key]!, this.options.plans, `demo key ${key}`)
        : this.defaultPlan);
    if (mapping === undefined) this.unmapped.add(key);
    return mapping ?? null;
  }

  refuseUnmapped(): void {
    const count = this.unmapped.size;
    if (count === 0) return;
    const shown = [...this.unmapped].slice(0, 5).map((key) => displayKey(key, this.demoKeys));
    throw new ReplayInputError(
      `The recording uses ${count} key${count === 1 ? '' : 's'} this mock does not know (${shown.join(', ')}${count > 5 ? ', …' : ''}): map ${count === 1 ? 'it' : 'them'} to a plan with --key KEY=plan or --default-plan PLAN`,
    );
  }
}

function harRequest(entry: HarEntry, where: string, keys: HarKeyPlans): ReplayRequest {
  const headers = harHeaders(entry);
  const match = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
  const key = match ? match[1]! : null;
  if (key !== null && !/^[\x21-\x7e]{1,512}$/.test(key))
    throw recordingRefused(
      `${where}.request.headers: expected a bearer key of at most 512 printable ASCII characters, as the mock's keys are; got ${displayKey(key, keys.demoKeys)}`,
    );
  const mapping = keys.planOf(key);
  const url = new URL(entry.request.url, 'http://replay.invalid');
  const status = (entry.response as { status?: unknown } | null | undefined)?.status;
  return {
    atMs: Date.parse(entry.startedDateTime),
    method: entry.request.method.toUpperCase(),
    url: `${url.pathname}${url.search}`,
    headers,
    body: entry.request.postData?.text ?? null,
    client: mapping === null ? 'anonymous recorded-client' : displayKey(key!, keys.demoKeys),
    kind: mapping === null ? 'anonymous' : 'key',
    plan: mapping?.plan ?? 'anonymous',
    limits: mapping?.limits ?? null,
    key: mapping === null ? null : key,
    clientAddress: mapping === null ? 'recorded-client' : 'replay',
    recordedStatus: Number.isInteger(status) && (status as number) >= 100 ? (status as number) : null,
  };
}

/** A HAR's requests, in the file's order; its text, or the document when the caller parsed it already. */
export function parseHar(textOrDocument: unknown, options: ReplayInputOptions): ReplayRequest[] {
  let document = textOrDocument;
  if (typeof textOrDocument === 'string') {
    try {
      document = JSON.parse(textOrDocument);
    } catch (error) {
      throw recordingRefused(
        `not valid JSON (${(error as Error).message.slice(0, 120)}); expected a HAR 1.2 file or the JSON lines of GET /__mock/requests?format=jsonl`,
      );
    }
  }
  const entries = (document as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) throw recordingRefused('log.entries: expected the array of a HAR 1.2 file');
  if (entries.length === 0) throw recordingRefused('log.entries is empty');
  const keys = new HarKeyPlans(options);
  const requests = entries.map((raw, index) => {
    const where = `log.entries[${index}]`;
    return harRequest(readHarEntry(raw, where), where, keys);
  });
  keys.refuseUnmapped();
  return requests;
}
