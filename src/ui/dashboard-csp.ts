import { dashboardPageHtml, dashboardScriptHash, dashboardStyleHash } from './dashboard-page.generated.js';

/**
 * The Content-Security-Policy sent with the dashboard page. Nothing loads or runs unless listed:
 * only the page's own inline script and style, by hash (no 'unsafe-inline', no eval); requests only to
 * the mock's own origin; pictures only from it or from data: URLs (the timeline SVG); no plugins,
 * no <base> rewriting, no form posting elsewhere, no framing by another site.
 *
 * @example
 * response.writeHead(200, dashboardPageHeaders);
 * response.end(dashboardPageHtml);
 */
export const dashboardContentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${dashboardScriptHash}`,
  `style-src ${dashboardStyleHash}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Every header the page is served with at `GET /__mock/ui`: the CSP, no caching (a new version of
 * the kit serves a new page), no MIME sniffing, no framing, and a referrer for the mock's own origin
 * only: `same-origin`, not `no-referrer`, because under `no-referrer` a browser that follows the Fetch
 * spec (Firefox) sends `Origin: null` with the page's POSTs, which the controls refuse as foreign.
 */
export const dashboardPageHeaders: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': dashboardContentSecurityPolicy,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * The answer to `GET /__mock/ui`, transport-free like the rest of the core: the page needs no token
 * (a navigation cannot send one, and the page holds no data), but the route keeps the controls'
 * loopback, Host and Origin checks.
 *
 * @example
 * const { status, headers, body } = dashboardPageResponse();
 */
export function dashboardPageResponse(): { status: 200; headers: Record<string, string>; body: string } {
  return { status: 200, headers: { ...dashboardPageHeaders }, body: dashboardPageHtml };
}
