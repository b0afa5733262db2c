/**
 * Who may drive the control API: the rules on the client address, the `Host` header and the
 * `Origin` header, kept apart from the controls themselves. Browser-safe (no node:*): the core runs
 * in a page under MSW too.
 *
 * Why `Host`: a DNS-rebinding page (evil.example re-pointed at 127.0.0.1) talks to the mock from the
 * developer's own browser, as a same-origin page, so neither the client address (loopback) nor
 * `Origin` (its own) gives it away; only `Host: evil.example` does. Dev servers check it for the same
 * reason since the webpack-dev-server and Vite advisories (docs/decisions/008-hardening.md).
 */

import { sha256 } from '@noble/hashes/sha2.js';
import type { MockConfig } from '../config/mock-config.js';
import { HttpError } from '../errors.js';
import { constantTimeEqual } from '../state/key-registry.js';
import type { MockRequest } from '../types.js';

/** `allowedHosts` as configured: names (`.example.test` also matches its subdomains), or `'all'`. */
export type AllowedHosts = 'all' | readonly string[];

/**
 * The hostname of a `Host` header value (`name[:port]`, `[v6]:port`), lower-case, without a
 * trailing dot, IPv4 in canonical dotted form; or undefined when it is not a plain host (userinfo,
 * a path, spaces or anything else a URL parser would read differently than a reader of the header).
 *
 * @example hostnameOfHostHeader('LOCALHOST.:4010') // 'localhost'
 */
export function hostnameOfHostHeader(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > 255 || !/^[A-Za-z0-9.\-_:[\]%]+$/.test(trimmed)) return undefined;
  return canonicalHostname(`http://${trimmed}`);
}

/**
 * The hostname of an `Origin` header value (`scheme://host[:port]`), canonical as above, or
 * undefined for `null`, a non-http(s) scheme or anything that is not exactly an origin.
 *
 * @example hostnameOfOrigin('http://127.0.0.1.nip.io:8080') // '127.0.0.1.nip.io' (a name, not an address)
 */
export function hostnameOfOrigin(value: string): string | undefined {
  const match = /^(https?):\/\/([A-Za-z0-9.\-_:[\]%]+)$/i.exec(value.trim());
  if (!match) return undefined;
  return canonicalHostname(`${match[1]!.toLowerCase()}://${match[2]!}`);
}

function canonicalHostname(url: string): string | undefined {
  let hostname: string;
  try {
    const parsed = new URL(url);
    if (
      parsed.username !== '' ||
      parsed.password !== '' ||
      parsed.pathname !== '/' ||
      parsed.search !== '' ||
      parsed.hash !== ''
    )
      return undefined;
    hostname = parsed.hostname;
  } catch {
    return undefined;
  }
  // The URL parser already lower-cased names and turned IPv4 in any spelling (127.1, 0x7f.1,
  // "127.0.0.1.") into dotted decimal; only a name's trailing dot is left to remove.
  if (hostname.endsWith('.') && !hostname.endsWith('..')) hostname = hostname.slice(0, -1);
  return hostname === '' ? undefined : hostname;
}

const ipv4 = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * A loopback address or name, as the URL parser writes a hostname: `127.0.0.0/8`, `[::1]`,
 * `[::ffff:127.x.y.z]` (written `[::ffff:7fxx:xxxx]`), `localhost` and `*.localhost` (RFC 6761:
 * browsers resolve them to loopback themselves, whatever DNS says). Nothing that merely starts with
 * "127." is one: `127.0.0.1.nip.io` is a name that any DNS server can point anywhere.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const v4 = ipv4.exec(hostname);
  if (v4) return v4[1] === '127';
  if (hostname === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname)) return true;
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

/**
 * A client (socket) address that is loopback: IPv4 `127.0.0.0/8`, `::1`, IPv4-mapped `::ffff:127.x.y.z`.
 *
 * @example isLoopbackAddress('::ffff:127.0.0.1') // true
 */
export function isLoopbackAddress(address: string): boolean {
  const lower = address.toLowerCase();
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  const v4 = lower.startsWith('::ffff:') ? lower.slice(7) : lower;
  const match = ipv4.exec(v4);
  return match !== null && match[1] === '127' && v4.split('.').every((part) => Number(part) <= 255);
}

/** Does `hostname` match an `allowedHosts` entry? `.example.test` matches it and its subdomains. */
function isAllowedName(hostname: string, allowedHosts: AllowedHosts): boolean {
  if (allowedHosts === 'all') return true;
  for (const entry of allowedHosts) {
    const name = entry.toLowerCase().replace(/\.$/, '');
    if (name.startsWith('.') ? hostname === name.slice(1) || hostname.endsWith(name) : hostname === name) return true;
  }
  return false;
}

/** The canonical hostname of a socket address, to compare with a Host header's (`::1` -> `[::1]`). */
function hostnameOfAddress(address: string): string | undefined {
  const unmapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address)?.[1] ?? address;
  return canonicalHostname(`http://${unmapped.includes(':') ? `[${unmapped}]` : unmapped}`);
}

/**
 * Why a `Host` header does not name the mock, or undefined when it does: a loopback name or
 * address, the address the connection arrived on (the server's own address, whatever it was bound
 * to, `0.0.0.0` included), or a name of `allowedHosts`. A request without `Host` passes: every
 * browser sends one, so a request without it (HTTP/1.0, a script) is not a rebinding page.
 */
export function hostRefusal(
  host: string | undefined,
  serverAddress: string | undefined,
  allowedHosts: AllowedHosts,
): string | undefined {
  if (host === undefined || allowedHosts === 'all') return undefined;
  const hostname = hostnameOfHostHeader(host);
  if (hostname === undefined) return `the Host header ${quote(host)} is not a host name`;
  if (isLoopbackHostname(hostname)) return undefined;
  if (serverAddress !== undefined && hostname === hostnameOfAddress(serverAddress)) return undefined;
  if (isAllowedName(hostname, allowedHosts)) return undefined;
  return `the Host ${quote(hostname)} does not name this mock (add it to allowedHosts, or --allowed-hosts, to allow it)`;
}

/**
 * Why an `Origin` header is foreign, or undefined when the page is the developer's own: a loopback
 * origin, or one whose host is in `allowedHosts`. A request without `Origin` is not a web page's
 * cross-origin request.
 */
export function originRefusal(origin: string | undefined, allowedHosts: AllowedHosts): string | undefined {
  if (origin === undefined) return undefined;
  const hostname = hostnameOfOrigin(origin);
  // `allowedHosts: 'all'` switches the Host check off; it never makes every website a trusted page.
  if (
    hostname !== undefined &&
    (isLoopbackHostname(hostname) || (allowedHosts !== 'all' && isAllowedName(hostname, allowedHosts)))
  )
    return undefined;
  return `the control API refuses requests from web pages of other origins (${quote(origin)})`;
}

/** At most 100 characters of untrusted text, JSON-escaped. */
function quote(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

const encoder = new TextEncoder();

/** Would the controls serve this caller (address, Host, Origin, token)? Checks only; counts nothing. */
export function controlAccessAllowed(request: MockRequest, config: MockConfig): boolean {
  return controlAccessRefusal(request, config) === undefined;
}

/** What the control guard reads of a request: its method and head, where it came from and arrived. */
export type ControlRequestHead = Pick<MockRequest, 'method' | 'headers' | 'clientAddress' | 'serverAddress'>;

/** Who may drive the controls (the mock's config; the judging proxy gives its own). */
export interface ControlAccessPolicy {
  allowRemoteControl: boolean;
  allowedHosts: AllowedHosts;
  controlToken?: string | undefined;
}

/**
 * The one guard of every control path, the mock's and the judging proxy's: throws
 * `control_forbidden` (403) for a caller that may not drive them.
 */
export function assertControlAccess(
  request: ControlRequestHead,
  config: ControlAccessPolicy,
  checks: { token: boolean } = { token: true },
): void {
  const refusal = controlAccessRefusal(request, config, checks);
  if (refusal !== undefined) throw new HttpError('control_forbidden', refusal);
}

/**
 * Why the controls refuse this caller, or undefined when they serve it: the client address, `Host`
 * (DNS rebinding), `Origin` and, for a request that changes state without `Origin`, `Sec-Fetch-Site`
 * (cross-site, or same-site: another port of the same host), then the control token.
 */
export function controlAccessRefusal(
  request: ControlRequestHead,
  config: ControlAccessPolicy,
  checks: { token: boolean } = { token: true },
): string | undefined {
  // `clientAddress` undefined is a caller in the same process or page (MSW, a test): trusted, and
  // with no Host to speak of (a browser's fetch never exposes it).
  if (request.clientAddress !== undefined) {
    if (!config.allowRemoteControl && !isLoopbackAddress(request.clientAddress))
      return 'The control API only answers loopback clients (start the mock with --allow-remote-control to change that)';
    const badHost = hostRefusal(request.headers.host, request.serverAddress, config.allowedHosts);
    if (badHost !== undefined) return `The control API refuses this request: ${badHost}`;
    // A page on any website can make the developer's own browser send a simple POST to loopback:
    // a request that names a foreign Origin is refused (the controls also send no CORS headers).
    const badOrigin = originRefusal(request.headers.origin, config.allowedHosts);
    if (badOrigin !== undefined) return `The control API refuses this request: ${badOrigin}`;
    const badSite = fetchSiteRefusal(request);
    if (badSite !== undefined) return `The control API refuses this request: ${badSite}`;
  }
  if (checks.token && config.controlToken !== undefined) {
    const sent = request.headers['x-mock-control-token'];
    // Digests have one length, so the comparison does not even reveal the token's length.
    if (
      sent === undefined ||
      !constantTimeEqual(sha256(encoder.encode(sent)), sha256(encoder.encode(config.controlToken)))
    )
      return 'The control API needs X-Mock-Control-Token with the configured token';
  }
  return undefined;
}

/** Methods that only read: a browser cannot read a cross-site answer to them (no CORS headers are sent). */
const readingMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A request that changes state, sent without `Origin` by a browser that says it came from another
 * site (`cross-site`) or another origin of the same site (`same-site`: another port of the same host
 * is same-site), as the Fetch Metadata headers tell. `same-origin`, `none` (the user typed it) and
 * no header (a script, curl) pass.
 */
function fetchSiteRefusal(request: ControlRequestHead): string | undefined {
  if (request.headers.origin !== undefined || readingMethods.has(request.method.toUpperCase())) return undefined;
  const site = request.headers['sec-fetch-site']?.trim().toLowerCase();
  if (site !== 'cross-site' && site !== 'same-site') return undefined;
  return `a browser sent it from another ${site === 'cross-site' ? 'site' : 'origin of this site'} (Sec-Fetch-Site: ${site}) without Origin`;
}
