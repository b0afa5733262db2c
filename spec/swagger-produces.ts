// Swagger 2.0's `produces` per operation, kept through the upgrade to 3.0. Scalar's upgrader (0.1.x,
// the Node 20 line) reads `document.produces ?? operation.produces`: an operation's own list (Docker's
// `application/x-tar`, `application/vnd.docker.raw-stream`) is lost wherever the document has one, and
// its answers become the document's JSON or text. So the lists are set aside before the upgrade and
// written back after it, on the success (2xx, 3xx) responses the operation writes itself; errors keep
// the document's list (Docker's errors are JSON objects, whatever the success streams).

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** Operations' own `produces`, by path and method, where the document has a list of its own too. */
export type OwnProduces = Map<string, { own: string[]; global: string[] }>;

/**
 * Before the upgrade: the operations whose own `produces` the upgrader would lose (the document
 * declares one too).
 *
 * @example ownProducesOf(swagger).get('/images/{name}/get get') // { own: ['application/x-tar'], global: ['application/json', 'text/plain'] }
 */
export function ownProducesOf(document: Record<string, unknown>): OwnProduces {
  const found: OwnProduces = new Map();
  const global = mediaList(document.produces);
  if (global === undefined || !isRecord(document.paths)) return found;
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isRecord(item)) continue;
    for (const method of methods) {
      const own = isRecord(item[method]) ? mediaList(item[method].produces) : undefined;
      if (own !== undefined && own.join() !== global.join()) found.set(`${path} ${method}`, { own, global });
    }
  }
  return found;
}

/**
 * After the upgrade: each such operation's success responses in its own media types (the schema and
 * examples the upgrader wrote under the document's types moved over). A success response without a
 * schema is, for an operation that says what it produces beyond JSON (Docker's export: a tar
 * stream), that media type with any body.
 */
export function applyOwnProduces(upgraded: Record<string, unknown>, produces: OwnProduces): void {
  if (produces.size === 0 || !isRecord(upgraded.paths)) return;
  for (const [key, { own, global }] of produces) {
    const split = key.lastIndexOf(' ');
    const operation = (upgraded.paths[key.slice(0, split)] as Record<string, unknown> | undefined)?.[
      key.slice(split + 1)
    ];
    if (!isRecord(operation) || !isRecord(operation.responses)) continue;
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!/^[23]/.test(status) || !isRecord(response) || '$ref' in response) continue;
      response.content = ownContent(response.content, own, global);
      if (response.content === undefined) delete response.content;
    }
  }
}

function ownContent(content: unknown, own: string[], global: string[]): Record<string, unknown> | undefined {
  if (!isRecord(content)) {
    const streams = own.filter((type) => !/json/i.test(type));
    return streams.length === 0 ? undefined : Object.fromEntries(streams.map((type) => [type, {}]));
  }
  const written = global.map((type) => content[type]).find(isRecord);
  const out: Record<string, unknown> = {};
  for (const [index, type] of own.entries()) {
    const entry = isRecord(content[type]) ? content[type] : undefined;
    if (entry !== undefined) out[type] = entry;
    else if (written !== undefined) {
      const { schema, example, examples } = written;
      out[type] = {
        ...(schema === undefined ? {} : { schema }),
        // Named examples belong to the first type, as the upgrader puts them.
        ...(index === 0 && example !== undefined ? { example } : {}),
        ...(index === 0 && examples !== undefined ? { examples } : {}),
      };
    } else out[type] = {};
  }
  // An example the document keyed by a media type of its own stays under that type.
  for (const [type, entry] of Object.entries(content))
    if (!(type in out) && isRecord(entry) && 'example' in entry && !global.includes(type)) out[type] = entry;
  return out;
}

function mediaList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((type) => typeof type === 'string')
    ? (value as string[])
    : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
