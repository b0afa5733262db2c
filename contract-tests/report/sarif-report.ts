import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type CatalogueRule, ruleCatalogue } from '../../spec/interface/catalogue.js';
import { defaultSpecPath } from '../../spec/load-spec.js';
import { loadYamlModule } from '../../spec/yaml-module.js';
import type { Evidence } from '../lib/exchange.js';
import { describeEvidence } from './human-report.js';
import { interfaceDocumentFile, interfaceLinks, kitRepository, ruleHref } from './interface-links.js';
import { type DocumentLines, documentLines, operationOfRequest, responseLine } from './openapi-lines.js';
import type { CheckResult, ContractReport } from './report-model.js';

/**
 * The report as SARIF 2.1.0, for code-scanning views (GitHub's upload-sarif, GitLab, IDE viewers).
 * One reporting rule per rule of the interface's catalogue (spec/interface/catalogue.ts), whether
 * the run failed it or not, and one per kind of check the run made (the check id before its `:`
 * operation); one result per failed check (WARN, a failure that does not fail the run, as a
 * warning), its message the check's finding and evidence, located in the OpenAPI document the run
 * used: the response its evidence's status falls on when the operation declares it, else the
 * operation. See docs/decisions/044-one-run-every-report.md.
 */

/** The SARIF document's schema and version. */
const sarifSchema = 'https://json.schemastore.org/sarif-2.1.0.json';

/** The kit's own interface as written: the bins read a minified JSON copy of it, the report points at the YAML. */
export const shippedSpecFile = fileURLToPath(new URL('../../spec/petstore.openapi.yaml', import.meta.url));

/** The document a SARIF report points into: its address and, when it could be read, its lines. */
export interface SarifDocument {
  /**
   * A relative URI reference, each path segment percent-encoded: below the working directory
   * (`uriBaseId: '%SRCROOT%'`), or, for a document outside it, below a base the log does not spell
   * out (no absolute path of the machine leaves it): the kit's repository at its version tag for
   * its own interface (`PETSTOREKIT`), the document's folder otherwise (`SPECDIR`).
   */
  uri: string;
  uriBaseId: '%SRCROOT%' | 'PETSTOREKIT' | 'SPECDIR' | undefined;
  lines: DocumentLines | undefined;
}

/** A relative file path as a URI reference: `my specs/a#1.yaml` is `my%20specs/a%231.yaml`. */
function uriReference(path: string): string {
  return path.split(sep).map(encodeURIComponent).join('/');
}

/**
 * Reads the run's document (the shipped YAML for the kit's own interface) and renders the report.
 *
 * @example await writeFile('contract.sarif', await renderSarifFile(report, process.cwd()));
 */
export async function renderSarifFile(report: ContractReport, cwd: string): Promise<string> {
  const own = report.spec.path === defaultSpecPath;
  const file = resolve(cwd, own ? shippedSpecFile : report.spec.path);
  const fromCwd = relative(cwd, file);
  const inside = fromCwd !== '' && fromCwd !== '..' && !fromCwd.startsWith(`..${sep}`) && !isAbsolute(fromCwd);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const document: SarifDocument = {
    ...(inside
      ? { uri: uriReference(fromCwd), uriBaseId: '%SRCROOT%' as const }
      : own
        ? { uri: 'spec/petstore.openapi.yaml', uriBaseId: 'PETSTOREKIT' as const }
        : { uri: uriReference(basename(file)), uriBaseId: 'SPECDIR' as const }),
    lines: text === undefined ? undefined : documentLines(text, await loadYamlModule()),
  };
  const markdown = await readFile(interfaceDocumentFile, 'utf8').catch(() => undefined);
  return renderSarifReport(report, document, { cwd, interfaceMarkdown: markdown });
}

/** The bases a log's relative URIs stand on: the working directory, and the one a document outside it uses. */
function uriBases(report: ContractReport, document: SarifDocument, cwd: string): Record<string, unknown> {
  const bases: Record<string, unknown> = {
    '%SRCROOT%': { uri: `${pathToFileURL(cwd).href.replace(/\/?$/, '/')}` },
  };
  if (document.uriBaseId === 'PETSTOREKIT')
    bases.PETSTOREKIT = {
      uri: `${kitRepository}/blob/v${encodeURIComponent(report.tool.version)}/`,
      description: {
        text: "petstore-kit's repository at the kit's version (the kit ran from outside the working directory)",
      },
    };
  if (document.uriBaseId === 'SPECDIR')
    bases.SPECDIR = {
      description: {
        text: "The folder of the run's OpenAPI document, outside the working directory (not written here)",
      },
    };
  return bases;
}

/**
 * The report as a SARIF 2.1.0 log (JSON text).
 *
 * @example renderSarifReport(report, { uri: 'openapi.yaml', uriBaseId: '%SRCROOT%', lines }, { cwd: process.cwd() })
 */
export function renderSarifReport(
  report: ContractReport,
  document: SarifDocument,
  options: { cwd: string; interfaceMarkdown?: string | undefined },
): string {
  const rules = reportingRules(report, options);
  const index = new Map(rules.map((rule, position) => [rule.id, position]));
  const artifact = {
    uri: document.uri,
    ...(document.uriBaseId === undefined ? {} : { uriBaseId: document.uriBaseId }),
  };
  const results = report.results
    .filter((result) => result.status === 'FAIL' || result.status === 'WARN')
    .map((result) => sarifResult(result, index.get(familyOf(result.id))!, { report, document, artifact }));
  const log = {
    $schema: sarifSchema,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'petstore-contract',
            version: report.tool.version,
            semanticVersion: report.tool.version,
            informationUri: kitRepository,
            rules,
          },
        },
        automationDetails: { id: `petstore-contract/${report.runId}` },
        originalUriBaseIds: uriBases(report, document, options.cwd),
        artifacts: [{ location: artifact, roles: ['analysisTarget'] }],
        invocations: [invocation(report)],
        columnKind: 'utf16CodeUnits',
        results,
        properties: {
          verdict: verdictOf(report),
          baseUrl: report.target.baseUrl,
          seed: report.settings.seed,
          summary: report.summary,
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** A reporting rule as SARIF writes it. */
interface ReportingRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  helpUri?: string;
  help: { text: string };
  defaultConfiguration: { level: 'error' };
  properties: { tags: string[]; 'interface-rule': string };
}

/** The kind of check a result is (`auth.missing-key` of `auth.missing-key:listCategories`): a SARIF rule. */
function familyOf(checkId: string): string {
  const colon = checkId.indexOf(':');
  return colon === -1 ? checkId : checkId.slice(0, colon);
}

/** The catalogue's rules, then each other kind of check of the run, in the order the run made them. */
function reportingRules(
  report: ContractReport,
  options: { cwd: string; interfaceMarkdown?: string | undefined },
): ReportingRule[] {
  // The catalogue's sections are linked even when the run made none of its checks (another document).
  const links =
    options.interfaceMarkdown === undefined
      ? report.interface
      : interfaceLinks(
          new Set([...ruleCatalogue.map((rule) => rule.rule), ...report.results.map((result) => result.rule)]),
          options.interfaceMarkdown,
          { version: report.tool.version, cwd: options.cwd },
        );
  const describe = (id: string, section: string, title: string, full: string): ReportingRule => {
    const helpUri = ruleHref(links, section, 'web');
    return {
      id,
      name: id.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase()),
      shortDescription: { text: title },
      fullDescription: { text: full },
      ...(helpUri === undefined ? {} : { helpUri }),
      help: { text: `${full}${helpUri === undefined ? '' : ` The rule: ${helpUri}`}` },
      defaultConfiguration: { level: 'error' },
      properties: { tags: ['contract', section], 'interface-rule': section },
    };
  };
  const rules = ruleCatalogue.map((rule: CatalogueRule) =>
    describe(rule.id, rule.rule, rule.title, `${sectionName(rule.rule)}: ${rule.title}. Failed when ${rule.what}.`),
  );
  const known = new Set(rules.map((rule) => rule.id));
  for (const result of report.results) {
    const id = familyOf(result.id);
    if (known.has(id)) continue;
    known.add(id);
    rules.push(
      describe(id, result.rule, result.title, `${sectionName(result.rule)}: ${result.title} (${result.area}).`),
    );
  }
  return rules;
}

function sectionName(rule: string): string {
  return rule === 'spec' ? 'The OpenAPI document' : rule.startsWith('§') ? `Interface ${rule}` : rule;
}

/** What every result of a log is placed in: the report, the document its lines are in, and that document as a SARIF artifact. */
interface ResultPlacing {
  report: ContractReport;
  document: SarifDocument;
  artifact: { uri: string; uriBaseId?: string };
}

/** One failed check as a SARIF result. */
function sarifResult(result: CheckResult, ruleIndex: number, { report, document, artifact }: ResultPlacing) {
  const evidence = result.evidence.length === 0 ? [undefined] : result.evidence;
  const places = evidence.map((entry) => place(result, entry, report, document));
  const location = (where: Place, id?: number) => ({
    ...(id === undefined ? {} : { id }),
    physicalLocation: { artifactLocation: artifact, region: { startLine: where.line } },
    ...(where.operation === undefined ? {} : { logicalLocations: [{ name: where.operation, kind: 'function' }] }),
  });
  const related = places
    .slice(1)
    .map((where, position) => ({ ...location(where, position + 1), message: { text: where.evidence } }))
    .filter((entry) => entry.message.text !== '');
  const text = [
    `${result.title}${result.operation === undefined ? '' : ` [${result.operation}]`}: ${result.message ?? 'failed'}`,
    ...result.evidence.map((entry) => `Evidence: ${describeEvidence(entry)}`),
  ].join('\n');
  return {
    ruleId: familyOf(result.id),
    ruleIndex,
    level: result.status === 'FAIL' ? 'error' : 'warning',
    message: { text },
    locations: [location(places[0]!)],
    ...(related.length === 0 ? {} : { relatedLocations: related }),
    // The check's id is what stays the same from run to run; the line may move when the document is edited.
    partialFingerprints: { 'petstoreContractCheck/v1': result.id },
    properties: {
      checkId: result.id,
      rule: result.rule,
      ...(result.operation === undefined ? {} : { operation: result.operation }),
    },
  };
}

interface Place {
  line: number;
  operation: string | undefined;
  evidence: string;
}

/** Where one piece of evidence is in the document: the response its status falls on, else its operation, else `paths:`. */
function place(
  result: CheckResult,
  evidence: Evidence | undefined,
  report: ContractReport,
  document: SarifDocument,
): Place {
  const described = evidence === undefined ? '' : describeEvidence(evidence);
  const lines = document.lines;
  if (lines === undefined) return { line: 1, operation: result.operation, evidence: described };
  // The evidence's own request first: a check of one operation may show a response of another (a POST that set up a GET).
  const operation =
    (evidence === undefined ? undefined : requestOperation(evidence.request, report.target.baseUrl, lines)) ??
    (result.operation !== undefined && lines.operations.has(result.operation) ? result.operation : undefined);
  const entry = operation === undefined ? undefined : lines.operations.get(operation);
  if (entry === undefined) return { line: lines.paths, operation: result.operation, evidence: described };
  const status = evidence?.status;
  const line = (status === undefined ? undefined : responseLine(entry, status)) ?? entry.line;
  return { line, operation, evidence: described };
}

/** The operation of an evidence line's request (`GET http://host/v1/pets/10 [...]`), its path taken below the base URL. */
function requestOperation(request: string, baseUrl: string, lines: DocumentLines): string | undefined {
  const match = /^([A-Z]+) (\S+)/.exec(request);
  if (!match) return undefined;
  let path: string;
  let basePath: string;
  try {
    path = new URL(match[2]!).pathname;
    basePath = new URL(baseUrl).pathname.replace(/\/$/, '');
  } catch {
    return undefined;
  }
  const below = path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : path;
  return operationOfRequest(lines, match[1]!, below);
}

function verdictOf(report: ContractReport): string {
  return report.verdict ?? (report.conforms ? 'CONFORMS' : 'DOES NOT CONFORM');
}

/** The run as SARIF's invocation: it ran (exit 0, 1 or 3); what stopped required checks, as notifications. */
function invocation(report: ContractReport) {
  const started = Date.parse(report.startedAt);
  return {
    executionSuccessful: true,
    exitCode: report.exitCode,
    startTimeUtc: report.startedAt,
    ...(Number.isNaN(started) ? {} : { endTimeUtc: new Date(started + report.durationMs).toISOString() }),
    ...(report.stoppedBy === undefined
      ? {}
      : {
          toolExecutionNotifications: report.stoppedBy.map((text) => ({
            level: 'warning',
            message: { text: `INCONCLUSIVE: ${text}` },
          })),
        }),
  };
}
