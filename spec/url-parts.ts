// A request target (`/v1/pets?limit=2`) read in two parts, the one way every reader splits it: at its
// first `?`. On the request path: one indexOf and one slice, no URL object.

/**
 * The path of a request target: all before its first `?` (the whole target when it has none).
 *
 * @example targetPath('/v1/pets?limit=2') // '/v1/pets'
 */
export function targetPath(target: string): string {
  const questionMark = target.indexOf('?');
  return questionMark === -1 ? target : target.slice(0, questionMark);
}

/**
 * The query of a request target: all after its first `?`, without it ('' when it has none).
 *
 * @example targetQuery('/v1/pets?limit=2') // 'limit=2'
 */
export function targetQuery(target: string): string {
  const questionMark = target.indexOf('?');
  return questionMark === -1 ? '' : target.slice(questionMark + 1);
}

/** Why a text is not an API base URL: what the kit's `--base-url` and the proxy's upstream refuse, each in its own words. */
export type BaseUrlProblem = 'not-absolute' | 'not-http' | 'credentials' | 'query-or-fragment';

/**
 * A base URL as a user gives one (the kit's target, the proxy's upstream): absolute, http or https,
 * without credentials (they go per request), query or fragment, read with `new URL` (off the request
 * path). The first problem, in that order: credentials before the query, so a message that quotes
 * the text for its query is never reached with a password in it. `path` is the URL's path without
 * its trailing slashes (`''` for the origin alone).
 *
 * @example readBaseUrl('https://api.example.com/v1/') // { url: URL, path: '/v1' }
 * @example readBaseUrl('ftp://h/v1') // { problem: 'not-http' }
 */
export function readBaseUrl(text: string): { url: URL; path: string } | { problem: BaseUrlProblem } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'not-absolute' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'not-http' };
  if (url.username !== '' || url.password !== '') return { problem: 'credentials' };
  if (url.search !== '' || url.hash !== '') return { problem: 'query-or-fragment' };
  return { url, path: url.pathname.replace(/\/+$/, '') };
}
