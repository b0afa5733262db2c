/**
 * Content negotiation (RFC 9110 12.5.1): which of the declared media types (lower case, no
 * parameters; ranges like `image/*` allowed) an `Accept` header prefers. Ties go to a JSON type, then
 * to the declared order, so without `Accept` (or with `*\/*`) the first JSON type declared wins, else
 * the first type. Returns the index of the
 * chosen one, or -1 when the header accepts none of them (a 406).
 *
 * @example chooseMedia(['application/json', 'application/xml'], 'application/xml') // 1
 * @example chooseMedia(['image/png'], 'application/json') // -1
 */
export function chooseMedia(declared: readonly string[], accept: string | undefined): number {
  if (accept === undefined || accept === '' || accept === '*/*') return preferringJson(declared);
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return preferringJson(declared);
  let best = -1;
  let bestQuality = 0;
  declared.forEach((type, index) => {
    const quality = qualityOf(type, ranges);
    // Of types the client likes as much, JSON: what `fetch` (Accept: */*) is written to read.
    if (quality > bestQuality || (quality > 0 && quality === bestQuality && isJson(type) && !isJson(declared[best]!))) {
      best = index;
      bestQuality = quality;
    }
  });
  return best;
}

/** The first JSON type declared, else the first type: the answer to a client that takes anything. */
function preferringJson(declared: readonly string[]): number {
  const json = declared.findIndex(isJson);
  return json === -1 ? 0 : json;
}

function isJson(type: string): boolean {
  const essence = type.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'));
}

interface AcceptRange {
  type: string;
  subtype: string;
  quality: number;
}

function parseAccept(header: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  for (const part of header.split(',').slice(0, 64)) {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const slash = range.indexOf('/');
    if (slash <= 0) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    ranges.push({
      type: range.slice(0, slash),
      subtype: range.slice(slash + 1),
      quality: Number.isFinite(quality) ? Math.min(1, Math.max(0, quality)) : 0,
    });
  }
  return ranges;
}

/** The quality the most specific matching range gives a declared type (a declared range matches its own kind). */
function qualityOf(declared: string, ranges: readonly AcceptRange[]): number {
  const slash = declared.indexOf('/');
  const type = declared.slice(0, slash);
  const subtype = declared.slice(slash + 1);
  let quality = 0;
  let specificity = -1;
  for (const range of ranges) {
    const typeMatches = range.type === '*' || type === '*' || range.type === type;
    const subtypeMatches =
      range.subtype === '*' ||
      subtype === '*' ||
      range.subtype === subtype ||
      (range.subtype === 'json' && subtype.endsWith('+json'));
    if (!typeMatches || !subtypeMatches) continue;
    const rangeSpecificity = (range.type === '*' ? 0 : 1) + (range.subtype === '*' ? 0 : 1);
    if (rangeSpecificity > specificity) {
      specificity = rangeSpecificity;
      quality = range.quality;
    }
  }
  return quality;
}
