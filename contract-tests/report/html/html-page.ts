import { createHash } from 'node:crypto';

/**
 * The page around the HTML report: its style sheet, its one script, and the Content-Security-Policy
 * that makes the file self-contained by rule. Both are fixed texts (nothing of a run is in them),
 * so the policy names them by their SHA-256 hash: no nonce (a saved file cannot renew one), no
 * 'unsafe-inline', and `default-src 'none'` refuses every other load, request and frame
 * (docs/decisions/045-self-contained-html-report.md).
 */

const styleSheet = `
:root { color-scheme: light; --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --skip: #9a6700; --info: #0969da; --warn: #bc4c00; --inc: #8250df; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; overflow-wrap: anywhere; }
main { max-width: 1400px; margin: 0 auto; padding: 16px; }
section { margin: 0 0 28px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 6px; }
p, ul, ol { margin: 0 0 8px; }
ul, ol { padding-left: 20px; }
a { color: var(--info); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { margin: 0; padding: 8px 10px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word; }
.muted { color: var(--muted); }
.verdict { display: inline-block; padding: 4px 10px; border-radius: 6px; font-weight: 700; color: #fff; }
.v-conforms { background: var(--pass); } .v-fails { background: var(--fail); } .v-inconclusive { background: var(--inc); }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0; padding: 0; list-style: none; }
.counts li { border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; min-width: 72px; }
.counts b { display: block; font-size: 18px; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 8px 0; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; min-width: 0; }
.s-pass { color: var(--pass); } .s-fail { color: var(--fail); font-weight: 600; } .s-skip { color: var(--skip); }
.s-info { color: var(--info); } .s-warn { color: var(--warn); } .s-inconclusive { color: var(--inc); font-weight: 600; }
.s-na, .s-notrun, .s-other { color: var(--muted); }
.cause { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 0 0 12px; }
.cause > * + * { margin-top: 8px; }
.copy { float: right; margin: 0 0 4px 8px; font: inherit; font-size: 12px; padding: 2px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); cursor: pointer; }
details > summary { cursor: pointer; font-weight: 600; margin: 0 0 8px; }
.table-box { max-width: 100%; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; min-width: 0; overflow-wrap: break-word; }
thead th { background: var(--soft); font-weight: 600; }
tbody th { font-weight: 600; }
table.matrix thead th:first-child { width: 150px; }
table.checks thead th:nth-child(1) { width: 110px; } table.checks thead th:nth-child(2) { width: 150px; }
td small, th small, .remedy { display: block; color: var(--muted); font-size: 12px; font-weight: 400; }
.timeline .narrow { display: none; }
@media (max-width: 760px) { .timeline .wide { display: none; } .timeline .narrow { display: block; } }
.timeline svg { display: block; width: 100%; height: auto; max-width: 100%; border: 1px solid var(--line); border-radius: 6px; }
footer { color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: 8px; }
@media (max-width: 1000px) {
  table.stack, table.stack tbody, table.stack tr, table.stack th, table.stack td { display: block; width: 100%; }
  table.stack thead { display: none; }
  table.stack tr { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 8px; }
  table.stack th, table.stack td { border: 0; border-top: 1px solid var(--line); }
  table.stack tr > :first-child { border-top: 0; background: var(--soft); }
  table.stack td[data-label]::before { content: attr(data-label); display: block; color: var(--muted); font-size: 12px; }
}
@media print { .copy { display: none; } }
`;

// Shows the copy buttons (hidden without a script) and copies a curl to the clipboard; selects it when the
// clipboard is refused (a file:// page in some browsers).
const script = `
for (const button of document.querySelectorAll('button[data-copy]')) button.hidden = false;
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  const block = button ? document.getElementById(button.dataset.copy) : null;
  if (!button || !block) return;
  const done = (word) => { button.textContent = word; setTimeout(() => { button.textContent = 'Copy'; }, 1500); };
  const select = () => { const range = document.createRange(); range.selectNodeContents(block); const selection = getSelection(); selection.removeAllRanges(); selection.addRange(range); done('Selected'); };
  if (navigator.clipboard) navigator.clipboard.writeText(block.textContent).then(() => done('Copied'), select);
  else select();
});
`;

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The policy the page declares: nothing loads, only the page's own style and script run. */
const contentSecurityPolicy = [
  "default-src 'none'",
  `style-src ${hashOf(styleSheet)}`,
  `script-src ${hashOf(script)}`,
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * A whole page: the policy first (it must come before what it governs), then the style sheet, the
 * body, and the script at the end.
 *
 * @example page('petstore-contract: CONFORMS', '<main>…</main>')
 */
export function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${title}</title>`,
    `<style>${styleSheet}</style>`,
    '</head>',
    '<body>',
    body,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
