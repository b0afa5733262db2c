import { isAbsolute, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { InterfaceLinks } from './report-schema.js';

/**
 * Every rule id the kit reports (`§5.3`, `§4 createCategory.1`, `§8`) points at the section of the
 * interface document it checks. The document ships in the package (docs/); a report names it
 * by a path a terminal can open and by a web address a CI page can link to (see
 * docs/decisions/017-clear-first-run.md for the choice).
 */

/** The interface document's path inside the package. */
export const interfaceDocumentPath = 'docs/petstore-service-interface.md';

/** The kit's repository: the web copy of the document is the one at the release's tag. */
export const kitRepository = 'https://github.com/petstore-kit/petstore-kit';

/** The shipped copy, next to the code: two levels up from contract-tests/report/ and from dist/bin/ alike. */
export const interfaceDocumentFile = fileURLToPath(new URL(`../../${interfaceDocumentPath}`, import.meta.url));

/** The document as a report links to it, and the section of each rule id the report names (its schema: report-schema.ts). */
export type { InterfaceLinks };

/** A heading of the document with its GitHub anchor. */
export interface DocumentHeading {
  level: number;
  text: string;
  anchor: string;
}

/**
 * The headings of a Markdown document with the anchors GitHub gives them: lower case, punctuation
 * dropped, spaces as hyphens, a repeated anchor numbered (`-1`, `-2`), as github-slugger does.
 *
 * @example documentHeadings('## 8. Limits')[0] // { level: 2, text: '8. Limits', anchor: '8-limits' }
 */
export function documentHeadings(markdown: string): DocumentHeading[] {
  const seen = new Map<string, number>();
  const headings: DocumentHeading[] = [];
  let fenced = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const text = match[2]!;
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    headings.push({ level: match[1]!.length, text, anchor: count === 0 ? base : `${base}-${count}` });
  }
  return headings;
}

/** Rule ids that name no section number, and the section they stand for. */
const aliases: Record<string, string> = {
  // "Matches the spec": the statuses and bodies section 4 lists for each operation (and section 2's fields).
  spec: '§4',
};

/**
 * The section of the interface document a rule id checks: `§N` and `§N.M` (rule M of section N)
 * point at the heading `N. ...`; `§N name` and `§N name.M` at the heading `name` inside section
 * N (`§4 createCategory.1` at "createCategory"). Undefined for an id that names no section.
 *
 * @example ruleSection('§4 createCategory.1', documentHeadings(text)) // { heading: 'createCategory', anchor: 'createcategory' }
 */
export function ruleSection(
  rule: string,
  headings: readonly DocumentHeading[],
): { heading: string; anchor: string } | undefined {
  const id = aliases[rule.replace(/\s*\(.*\)$/, '')] ?? rule.replace(/\s*\(.*\)$/, '');
  const match = /^§(\d+)(?:\.\d+)*(?:\s+([A-Za-z][\w-]*)(?:\.\d+)*)?$/.exec(id);
  if (!match) return undefined;
  const sectionIndex = headings.findIndex((heading) => heading.level === 2 && heading.text.startsWith(`${match[1]}. `));
  if (sectionIndex === -1) return undefined;
  const section = headings[sectionIndex]!;
  if (match[2] === undefined) return { heading: section.text, anchor: section.anchor };
  for (const heading of headings.slice(sectionIndex + 1)) {
    if (heading.level <= section.level) break;
    if (heading.text === match[2] || heading.text.startsWith(`${match[2]} `))
      return { heading: heading.text, anchor: heading.anchor };
  }
  return undefined;
}

/**
 * The address of a rule id that names another document: `RFC 9110 §9.3.2` is section 9.3.2 of
 * RFC 9110 at the RFC Editor. Undefined for any other id.
 *
 * @example externalRuleUrl('RFC 9110 §9.3.2') // 'https://www.rfc-editor.org/rfc/rfc9110#section-9.3.2'
 */
export function externalRuleUrl(rule: string): string | undefined {
  const match = /^RFC (\d+)(?: §(\d+(?:\.\d+)*))?$/.exec(rule.trim());
  if (!match) return undefined;
  return `https://www.rfc-editor.org/rfc/rfc${match[1]}${match[2] === undefined ? '' : `#section-${match[2]}`}`;
}

/**
 * The links a report carries for the rule ids it names.
 *
 * @example interfaceLinks(['§8', '§5.3'], markdown, { version: '0.1.0', cwd: process.cwd() }).sections['§8'] // { heading: '8. Limits', anchor: '8-limits' }
 */
export function interfaceLinks(
  rules: Iterable<string>,
  markdown: string,
  options: { version: string; cwd: string; file?: string },
): InterfaceLinks {
  const headings = documentHeadings(markdown);
  const sections: InterfaceLinks['sections'] = {};
  const external: Record<string, string> = {};
  for (const rule of rules) {
    const section = ruleSection(rule, headings);
    if (section !== undefined) sections[rule] = section;
    const url = section === undefined ? externalRuleUrl(rule) : undefined;
    if (url !== undefined) external[rule] = url;
  }
  const file = options.file ?? interfaceDocumentFile;
  const fromCwd = relative(options.cwd, file);
  return {
    document: interfaceDocumentPath,
    local:
      fromCwd !== '' && !fromCwd.startsWith('..') && !isAbsolute(fromCwd)
        ? fromCwd.split('\\').join('/')
        : pathToFileURL(file).href,
    web: `${kitRepository}/blob/v${options.version}/${interfaceDocumentPath}`,
    sections,
    ...(Object.keys(external).length === 0 ? {} : { external }),
  };
}

/**
 * Where a rule id points, for one kind of reader (an RFC's rule id points at the RFC for both);
 * undefined when the report has no links or the id names no section.
 *
 * @example ruleHref(report.interface, '§8', 'web') // 'https://github.com/petstore-kit/petstore-kit/blob/v0.1.0/docs/petstore-service-interface.md#8-limits'
 */
export function ruleHref(links: InterfaceLinks | undefined, rule: string, reader: 'local' | 'web'): string | undefined {
  const external = links?.external?.[rule];
  if (external !== undefined) return external;
  const section = links?.sections[rule];
  if (links === undefined || section === undefined) return undefined;
  return `${reader === 'web' ? links.web : links.local}#${section.anchor}`;
}
