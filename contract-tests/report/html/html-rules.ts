import { ruleHref } from '../interface-links.js';
import type { ContractReport } from '../report-model.js';
import { html, safeHref } from './html-text.js';

/**
 * A rule id as a link to its section of the interface document: the copy at the kit version's tag
 * on the web (an HTML report is read on another machine than the runner's), or the RFC's section.
 * The section's heading is the link's tooltip. Plain text when the report has no link for it.
 *
 * @example ruleLink(report, '§8') // '<a href="https://…/petstore-service-interface.md#8-limits" title="8. Limits" rel="noreferrer">§8</a>'
 */
export function ruleLink(report: ContractReport, rule: string): string {
  const href = safeHref(ruleHref(report.interface, rule, 'web'));
  if (href === undefined) return html(rule);
  const heading = report.interface?.sections[rule]?.heading;
  const title = heading === undefined ? '' : ` title="${html(heading)}"`;
  return `<a href="${href}"${title} rel="noreferrer">${html(rule)}</a>`;
}

/**
 * Every rule the run names, by section of the interface document: one list item per section with
 * its rule ids, each linked; rules of other documents (RFCs) after them.
 */
export function rulesSection(report: ContractReport): string {
  const links = report.interface;
  if (links === undefined) return '';
  const bySection = new Map<string, string[]>();
  const external: string[] = [];
  for (const rule of new Set(report.results.map((result) => result.rule))) {
    const section = links.sections[rule];
    if (section !== undefined) bySection.set(section.anchor, [...(bySection.get(section.anchor) ?? []), rule]);
    else if (links.external?.[rule] !== undefined) external.push(rule);
  }
  if (bySection.size === 0 && external.length === 0) return '';
  const items = [
    ...[...bySection.values()].map(
      (rules) =>
        `<li>${html(links.sections[rules[0]!]!.heading)}: ${rules.map((rule) => ruleLink(report, rule)).join(', ')}</li>`,
    ),
    ...external.map((rule) => `<li>${ruleLink(report, rule)}</li>`),
  ];
  return [
    '<section id="rules">',
    '<h2>Rules by section of the interface</h2>',
    `<p class="muted">Each rule id links to its section of <span class="mono">${html(links.document)}</span> at the kit's version.</p>`,
    `<ul>${items.join('')}</ul>`,
    '</section>',
  ].join('\n');
}
