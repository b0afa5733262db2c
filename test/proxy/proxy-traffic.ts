/**
 * Real traffic a frontend and a busy client would send, through the judging proxy: 401s, 400s, a
 * 404 and a 405, a deprecated operation, then one key sent one request at a time into its 429 and
 * a little past it. Every answer is recorded client-side in order, so a test can tell which answer
 * first shows a fault without reading the proxy's judgement.
 */
export interface ClientSideExchange {
  /** 1-based order of sending (requests go one at a time, so the proxy's `seq` is the same). */
  seq: number;
  key: string | null;
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  json: unknown;
}

export async function driveTraffic(
  baseUrl: string,
  keys: { main: string; limited: string },
  options: { maxToLimit?: number; afterLimit?: number } = {},
): Promise<ClientSideExchange[]> {
  const out: ClientSideExchange[] = [];
  const send = async (
    method: string,
    path: string,
    key: string | null,
    body?: string,
    contentType = 'application/json',
  ) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const exchange = {
      seq: out.length + 1,
      key,
      method,
      path,
      status: response.status,
      headers: Object.fromEntries(response.headers),
      json,
    };
    out.push(exchange);
    return exchange;
  };
  await send('GET', '/categories', null);
  await send('GET', '/categories', 'not-a-key');
  await send('GET', '/categories', keys.main);
  await send('POST', '/categories', keys.main, JSON.stringify({ name: `proxy-${Date.now()}` }));
  await send('GET', '/categories', keys.main);
  await send('POST', '/categories', keys.main, JSON.stringify({ description: 'no name' }));
  await send('GET', '/categories', keys.main);
  await send('POST', '/categories', keys.main, '{"name":');
  await send('GET', '/no-such-resource', keys.main);
  await send('GET', '/categories', keys.main);
  await send('PATCH', '/categories', keys.main);
  await send('GET', '/pets/1', keys.main);
  await send('GET', '/store/orders', keys.main);
  await send('GET', '/categories', keys.main);
  const maxToLimit = options.maxToLimit ?? 80;
  for (let index = 0; index < maxToLimit; index += 1)
    if ((await send('GET', '/categories', keys.limited)).status === 429) break;
  for (let index = 0; index < (options.afterLimit ?? 2); index += 1) await send('GET', '/categories', keys.limited);
  return out;
}
