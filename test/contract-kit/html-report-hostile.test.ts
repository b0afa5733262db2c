import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOnlyOwnMarkup } from '../../contract-tests/report/html-markup.fixture.js';
import { renderHtmlReport } from '../../contract-tests/report/html-report.js';
import { runKit } from './support/run-kit.js';

// The HTML page of a run against a server that answers every request with what a page fears: 2 MB
// bodies, markup in its status text, headers, JSON keys and error messages, a `javascript:`
// Location, JSON nested 5,000 deep, lone surrogates, bidi overrides, and the key it was sent echoed
// back. The page stays small, well-formed Unicode, its own markup only, and shows no run of the key.

const key = 'hostile-key-0123456789abcdef';
const huge = 'A'.repeat(2_000_000);
const nested = `${'['.repeat(5000)}${']'.repeat(5000)}`;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const evil = `<script>alert(1)</script>\u202eFAIL\u202c \ud800 ${request.headers.authorization ?? ''}`;
    response.statusMessage = 'OK</title><script>alert(2)</script>';
    response.setHeader('x-evil', '"><img src=x onerror=alert(3)>');
    response.setHeader('location', 'javascript:alert(4)');
    response.setHeader('content-type', 'application/json');
    if (request.method === 'GET' && request.url?.includes('categories'))
      response.end(`{${JSON.stringify(evil)}: ${JSON.stringify(huge)}, "nested": ${nested}}`);
    else {
      response.statusCode = 401;
      response.end(JSON.stringify({ code: evil, message: `${huge}${evil}` }));
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});

afterAll(async () => {
  await new Promise((done) => server?.close(done));
});

describe('HTML report of a hostile server', () => {
  it('stays bounded, well-formed and its own markup, and never shows the key', async () => {
    const { report } = await runKit({ baseUrl, apiKey: key, readOnly: true });
    const page = renderHtmlReport(report);
    expectOnlyOwnMarkup(page);
    // Two 2 MB bodies per check reach the kit; the page holds excerpts of them.
    expect(Buffer.byteLength(page)).toBeLessThan(1_000_000);
    expect(page).not.toMatch(/\p{Cs}/u);
    expect(page).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(page).not.toMatch(/href="(?!https?:)/);
    for (let at = 0; at + 8 <= key.length; at += 1) expect(page).not.toContain(key.slice(at, at + 8));
  }, 120_000);
});
