import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { suiteAreas } from '../suite/index.js';
import {
  documentHeadings,
  externalRuleUrl,
  interfaceDocumentFile,
  interfaceDocumentPath,
  interfaceLinks,
  kitRepository,
  ruleHref,
  ruleSection,
} from './interface-links.js';

const document = await readFile(interfaceDocumentFile, 'utf8');
const headings = documentHeadings(document);

describe('rule ids link to the interface document', () => {
  it('every rule id the suite uses names an existing section of the shipped document (or, for an RFC, its section at the RFC Editor)', () => {
    const rules = new Set(suiteAreas.flatMap((area) => area.checks.map((check) => check.rule)));
    expect(rules.size).toBeGreaterThan(10);
    const unresolved = [...rules].filter(
      (rule) => ruleSection(rule, headings) === undefined && externalRuleUrl(rule) === undefined,
    );
    expect(unresolved).toEqual([]);
    const anchors = new Set(headings.map((heading) => heading.anchor));
    for (const rule of [...rules].filter((id) => !id.startsWith('RFC ')))
      expect(anchors.has(ruleSection(rule, headings)!.anchor), rule).toBe(true);
    const links = interfaceLinks(rules, document, { version: '0.1.0', cwd: '/' });
    for (const rule of rules) expect(ruleHref(links, rule, 'web'), rule).toMatch(/^https:\/\//);
  });

  it('points an RFC rule id at the RFC Editor', () => {
    expect(externalRuleUrl('RFC 9110 §9.3.2')).toBe('https://www.rfc-editor.org/rfc/rfc9110#section-9.3.2');
    expect(externalRuleUrl('RFC 6750')).toBe('https://www.rfc-editor.org/rfc/rfc6750');
    expect(externalRuleUrl('§8')).toBeUndefined();
    const links = interfaceLinks(['RFC 9110 §6.6.1'], document, { version: '1.0.0', cwd: '/' });
    expect(ruleHref(links, 'RFC 9110 §6.6.1', 'local')).toBe('https://www.rfc-editor.org/rfc/rfc9110#section-6.6.1');
  });

  it('points each form of rule id at its section: §N, §N.M, §N name, §N name.M, aliases', () => {
    expect(ruleSection('§5.3', headings)).toEqual({ heading: '5. Authentication', anchor: '5-authentication' });
    expect(ruleSection('§8', headings)).toEqual({ heading: '8. Limits', anchor: '8-limits' });
    expect(ruleSection('§9.3', headings)).toEqual({ heading: '9. Versioning', anchor: '9-versioning' });
    expect(ruleSection('§4 createCategory.1', headings)).toEqual({
      heading: 'createCategory',
      anchor: 'createcategory',
    });
    expect(ruleSection('§4 listCategories', headings)).toEqual({ heading: 'listCategories', anchor: 'listcategories' });
    expect(ruleSection('spec', headings)).toEqual({ heading: '4. Endpoints', anchor: '4-endpoints' });
    expect(ruleSection('spec (Prism)', headings)).toEqual({ heading: '4. Endpoints', anchor: '4-endpoints' });
    expect(ruleSection('§42', headings)).toBeUndefined();
    expect(ruleSection('§4 deleteCategory', headings)).toBeUndefined();
    expect(ruleSection('whatever', headings)).toBeUndefined();
  });

  it('makes anchors as GitHub does: punctuation dropped, spaces as hyphens, repeats numbered, code fences skipped', () => {
    expect(
      documentHeadings('# A: B (c)\n## A: B (c)\n```\n# not a heading\n```\n### Ünïcode & more').map(
        (heading) => heading.anchor,
      ),
    ).toEqual(['a-b-c', 'a-b-c-1', 'ünïcode--more']);
    expect(headings.find((heading) => heading.text.startsWith('NewCategory'))?.anchor).toBe(
      'newcategory-request-body-for-creation',
    );
  });

  it('links for a terminal (relative to the working directory, or file://) and for the web (the tag of the version)', () => {
    const links = interfaceLinks(['§8', '§5.3', 'nonsense'], document, {
      version: '1.2.3',
      cwd: '/home/me/app',
      file: '/home/me/app/node_modules/petstore-kit/docs/petstore-service-interface.md',
    });
    expect(links.local).toBe('node_modules/petstore-kit/docs/petstore-service-interface.md');
    expect(links.web).toBe(`${kitRepository}/blob/v1.2.3/${interfaceDocumentPath}`);
    expect(Object.keys(links.sections)).toEqual(['§8', '§5.3']);
    expect(ruleHref(links, '§8', 'local')).toBe(
      'node_modules/petstore-kit/docs/petstore-service-interface.md#8-limits',
    );
    expect(ruleHref(links, '§5.3', 'web')).toBe(
      `${kitRepository}/blob/v1.2.3/docs/petstore-service-interface.md#5-authentication`,
    );
    expect(ruleHref(links, 'nonsense', 'web')).toBeUndefined();
    const elsewhere = interfaceLinks(['§8'], document, {
      version: '1.2.3',
      cwd: '/srv/ci',
      file: '/opt/kit/docs/petstore service interface.md',
    });
    expect(elsewhere.local).toBe('file:///opt/kit/docs/petstore%20service%20interface.md');
  });

  it('names the repository package.json names (the web links point at it)', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      repository: { url: string };
      files: string[];
    };
    expect(pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')).toBe(kitRepository);
    // The document ships: package.json's files list holds docs/ (the packed-package test opens the tarball).
    const shipsDocument = (entry: string) =>
      entry === 'docs' || entry === 'docs/*.md' || entry === interfaceDocumentPath;
    expect(pkg.files.some(shipsDocument) && !pkg.files.includes(`!${interfaceDocumentPath}`)).toBe(true);
  });
});
