import { sha256 } from '@noble/hashes/sha2.js';
import { xmlEscape } from '../lab/lab-report.js';
import type { ProxyReport } from './proxy-types.js';

const style = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24}h1{font-size:1.3rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
.fail{color:#b42318;font-weight:600}.pass{color:#067647}.not-exercised,.info{color:#57606a}
.sides{display:flex;gap:2rem;flex-wrap:wrap}.sides>section{flex:1 1 28rem}code{font-size:.9em}`;

const styleHash = `'sha256-${btoa(String.fromCharCode(...sha256(new TextEncoder().encode(style))))}'`;

/**
 * The dashboard of the judging proxy (`GET /__mock/ui` in proxy mode): server verdicts beside client
 * verdicts, per key, and the requests that broke a rule with the rule and the evidence. Rendered on
 * the server from the proxy's report with no script at all (the page refreshes itself every 2 s);
 * its Content-Security-Policy allows the page's one inline style, by its hash, and nothing else. A
 * page of its own beside the mock's dashboard, so the two evolve apart.
 *
 * @example
 * const page = proxyPanelResponse(proxy.report());
 * response.writeHead(page.status, page.headers).end(page.body);
 */
export function proxyPanelResponse(data: ProxyReport): {
  status: 200;
  headers: Record<string, string>;
  body: string;
} {
  return {
    status: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'none'; style-src ${styleHash}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    },
    body: renderProxyPanel(data),
  };
}

/** The page's HTML; every value from the traffic is escaped. */
function renderProxyPanel(data: ProxyReport): string {
  const h = xmlEscape;
  const outcome = (text: string) => `<span class="${h(text)}">${h(text.toUpperCase())}</span>`;
  const ruleRows = data.server.rules
    .map(
      (rule) =>
        `<tr><td><code>${h(rule.id)}</code> ${h(rule.rule)}<br>${h(rule.title)}</td><td>${outcome(rule.outcome)}</td><td>${rule.judged}</td><td>${rule.failed}</td></tr>`,
    )
    .join('');
  const broken = data.server.rules
    .filter((rule) => rule.outcome === 'fail')
    .flatMap((rule) =>
      rule.evidence.map(
        (evidence) =>
          `<tr><td>#${evidence.seq}<br>${h(evidence.time)}</td><td>${h(evidence.request)} → ${evidence.status}</td><td><code>${h(rule.id)}</code></td><td>${h(evidence.detail)}${evidence.header ? ` <em>[${h(evidence.header)}]</em>` : ''}${evidence.field ? ` <em>[${h(evidence.field)}]</em>` : ''}</td></tr>`,
      ),
    )
    .join('');
  const clientRows = data.client.clients
    .flatMap((client) =>
      client.verdicts.map(
        (verdict) =>
          `<tr><td>${h(client.client)}</td><td>${h(client.plan)}</td><td>${client.requests.total}</td><td>${h(verdict.rule)}</td><td>${outcome(verdict.outcome)}</td><td>${h(verdict.evidence.summary)}</td></tr>`,
      ),
    )
    .join('');
  const information = data.server.information.map((text) => `<li>${h(text)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>Judging proxy: ${h(data.upstream)}</title><style>${style}</style></head><body>
<h1>Judging proxy of ${h(data.upstream)}</h1>
<p>${data.requests.forwarded} requests forwarded, ${data.requests.answered} answered, ${data.requests.upstreamFailures} without an answer (502), ${data.requests.tooLargeToJudge} too large to judge · ${h(data.generatedAt)}</p>
<div class="sides">
<section><h2>Server ${outcome(data.server.outcome)}</h2>
<table><thead><tr><th>Rule</th><th>Outcome</th><th>Judged</th><th>Failed</th></tr></thead><tbody>${ruleRows}</tbody></table></section>
<section><h2>Clients ${outcome(data.client.outcome)}</h2>
${clientRows === '' ? '<p>No client yet.</p>' : `<table><thead><tr><th>Client</th><th>Plan</th><th>Requests</th><th>Rule</th><th>Outcome</th><th>Evidence</th></tr></thead><tbody>${clientRows}</tbody></table>`}</section>
</div>
<h2>Requests that broke a rule</h2>
${broken === '' ? '<p>None.</p>' : `<table><thead><tr><th>Request</th><th>Exchange</th><th>Rule</th><th>Evidence</th></tr></thead><tbody>${broken}</tbody></table>`}
${information === '' ? '' : `<h2>Information</h2><ul>${information}</ul>`}
</body></html>
`;
}
