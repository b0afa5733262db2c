import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { buildDashboardPage, generatedPath } from './build-dashboard.mjs';
import { dashboardContentSecurityPolicy, dashboardPageHeaders } from './dashboard-csp.js';
import { dashboardPageHtml, dashboardScriptHash, dashboardStyleHash } from './dashboard-page.generated.js';

it('the committed dashboard-page.generated.ts matches its sources (run `node src/ui/build-dashboard.mjs` when this fails)', async () => {
  const { module } = await buildDashboardPage();
  const committed = await readFile(generatedPath, 'utf8');
  // One boolean, not a 35 KB diff: the message says what to do.
  expect(
    committed === module,
    'src/ui/dashboard-page.generated.ts is stale: run `node src/ui/build-dashboard.mjs` and commit the result',
  ).toBe(true);
});

it('the build is deterministic', async () => {
  const [first, second] = await Promise.all([buildDashboardPage(), buildDashboardPage()]);
  expect(second.module).toBe(first.module);
});

it('the page is one file: one inline script and one inline style, no external resource, no inline handler or style attribute', () => {
  expect(dashboardPageHtml.match(/<script\b/g)).toHaveLength(1);
  expect(dashboardPageHtml.match(/<style\b/g)).toHaveLength(1);
  expect(dashboardPageHtml).not.toMatch(/<script[^>]*\ssrc=/i);
  expect(dashboardPageHtml).not.toMatch(/<link[^>]*rel="stylesheet"/i);
  expect(dashboardPageHtml).not.toMatch(/https?:\/\//i);
  // The CSP allows neither: an onclick= or style= in the markup would simply not work.
  const markup = dashboardPageHtml.replace(/<script>[\s\S]*<\/script>/, '').replace(/<style>[\s\S]*<\/style>/, '');
  expect(markup).not.toMatch(/\son[a-z]+=/i);
  expect(markup).not.toMatch(/\sstyle=/i);
});

it("the CSP allows exactly the page's inline script and style by hash, and connections only to its own origin", () => {
  const script = /<script>([\s\S]*)<\/script>/.exec(dashboardPageHtml)![1]!;
  const style = /<style>([\s\S]*)<\/style>/.exec(dashboardPageHtml)![1]!;
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
  expect(dashboardScriptHash).toBe(hash(script));
  expect(dashboardStyleHash).toBe(hash(style));
  const directives = Object.fromEntries(
    dashboardContentSecurityPolicy.split('; ').map((directive) => {
      const [name, ...values] = directive.split(' ');
      return [name, values.join(' ')];
    }),
  );
  expect(directives).toEqual({
    'default-src': "'none'",
    'script-src': dashboardScriptHash,
    'style-src': dashboardStyleHash,
    'connect-src': "'self'",
    'img-src': "'self' data:",
    'base-uri': "'none'",
    'form-action': "'none'",
    'frame-ancestors': "'none'",
  });
  expect(dashboardContentSecurityPolicy).not.toMatch(/unsafe-(inline|eval)/);
  expect(dashboardPageHeaders['Content-Security-Policy']).toBe(dashboardContentSecurityPolicy);
  expect(dashboardPageHeaders['Content-Type']).toBe('text/html; charset=utf-8');
  // Not no-referrer: with it, spec-following browsers send `Origin: null` on POST and the controls refuse it.
  expect(dashboardPageHeaders['Referrer-Policy']).toBe('same-origin');
  expect(dashboardPageHtml).toContain('<meta name="referrer" content="same-origin">');
});

it('the page script never uses eval, innerHTML or absolute URLs', async () => {
  // Every source of the page (dashboard-app.ts and what it imports, followed), so a new panel's file is
  // held to the same rules without being listed here.
  const names: string[] = [];
  for (const queue = ['dashboard-app.ts']; queue.length > 0; ) {
    const name = queue.shift()!;
    if (names.includes(name)) continue;
    names.push(name);
    const source = await readFile(new URL(name, import.meta.url), 'utf8');
    for (const [, imported] of source.matchAll(/^import (?!type )[^;]*? from '\.\/([\w-]+)\.js';/gms))
      queue.push(`${imported}.ts`);
  }
  expect(names).toEqual(expect.arrayContaining(['client-card.ts', 'downloads-panel.ts', 'dashboard-format.ts']));
  const sources = await Promise.all(names.map((name) => readFile(new URL(name, import.meta.url), 'utf8')));
  for (const source of sources) {
    expect(source).not.toMatch(/\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval|new Function)\b/);
    expect(source).not.toMatch(/fetch\(\s*['"`]https?:/);
    expect(source).not.toMatch(/localStorage/);
  }
});
