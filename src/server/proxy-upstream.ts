import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readBaseUrl } from '../../spec/url-parts.js';

/**
 * The real server behind the judging proxy: its base URL, and one keep-alive agent (http or https,
 * with the caller's extra CA certificates) every forwarded request goes through.
 *
 * @example
 * const upstream = openUpstream('https://staging.example.com/v1', undefined);
 * upstream.send({ method: 'GET', path: `${upstream.url.pathname}/categories`, headers: [] });
 * upstream.close();
 */
export interface Upstream {
  url: URL;
  /** `https://staging.example.com/v1`, as the proxy names it in its messages and report. */
  label: string;
  /** A request to the upstream, through the agent (`protocol`, `hostname` and `port` are the upstream's). */
  send(options: RequestOptions): ClientRequest;
  /** Closes the agent's connections. */
  close(): void;
}

export function openUpstream(text: string, ca: string | Buffer | undefined): Upstream {
  const url = parseUpstream(text);
  const isTls = url.protocol === 'https:';
  const agent = isTls
    ? new HttpsAgent({ keepAlive: true, ...(ca !== undefined ? { ca } : {}) })
    : new HttpAgent({ keepAlive: true });
  const request = isTls ? httpsRequest : httpRequest;
  return {
    url,
    label: `${url.origin}${url.pathname}`,
    send: (options) =>
      request({ ...options, agent, protocol: url.protocol, hostname: url.hostname, port: url.port, setHost: false }),
    close: () => agent.destroy(),
  };
}

/** The upstream base URL, checked: http(s), no credentials in it, no query. Throws one line naming the problem. */
export function parseUpstream(text: string): URL {
  const read = readBaseUrl(text);
  if ('url' in read) {
    read.url.pathname = read.path;
    return read.url;
  }
  switch (read.problem) {
    case 'not-absolute':
      throw new Error(
        `Failed to read the upstream URL "${text}": not an absolute URL such as https://staging.example.com/v1`,
      );
    case 'not-http':
      throw new Error(`Failed to read the upstream URL "${text}": only http and https are supported`);
    case 'credentials':
      throw new Error('Failed to read the upstream URL: it carries credentials; send them per request instead');
    case 'query-or-fragment':
      throw new Error(`Failed to read the upstream URL "${text}": a base URL has no query or fragment`);
  }
}
