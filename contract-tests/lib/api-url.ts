import { readBaseUrl } from '../../spec/url-parts.js';

/**
 * The one place where the suite turns an API path into a URL. The base URL already holds the
 * version prefix (`/v1`), exactly as the interface's base addresses do, so paths are the spec's
 * paths (`/categories`), never hard-coded hosts.
 *
 * @example apiUrl('http://127.0.0.1:4010/v1', '/categories') // 'http://127.0.0.1:4010/v1/categories'
 */
export function apiUrl(baseUrl: string, path: string): string {
  if (!path.startsWith('/')) throw new Error(`Failed to build a URL for ${path}: API paths start with "/"`);
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/**
 * Normalises a base URL given by a user: http(s) only, no query or fragment, no trailing slash.
 * Throws "Failed to use base URL ...: <reason>" on anything else.
 *
 * @example normaliseBaseUrl('http://127.0.0.1:4010/v1/') // 'http://127.0.0.1:4010/v1'
 */
export function normaliseBaseUrl(text: string): string {
  const read = readBaseUrl(text);
  if ('url' in read) return `${read.url.origin}${read.path}`;
  // Never print a password given in the URL, whatever else is wrong with it.
  const shown = withoutUserinfo(text);
  switch (read.problem) {
    case 'not-absolute':
      throw new Error(
        `Failed to use base URL ${JSON.stringify(shown)}: it is not an absolute URL (example: https://api.example.com/v1)`,
      );
    case 'not-http':
      throw new Error(`Failed to use base URL ${shown}: only http and https are supported`);
    case 'credentials':
      throw new Error(`Failed to use base URL ${shown}: put credentials in --api-key, not in the URL`);
    case 'query-or-fragment':
      throw new Error(`Failed to use base URL ${shown}: it must not carry a query or a fragment`);
  }
}

/**
 * The URL text with any `user:password@` replaced by `***@`, for messages.
 *
 * @example withoutUserinfo('https://me:s3cret@api.example.com/v1') // 'https://***@api.example.com/v1'
 */
function withoutUserinfo(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}
