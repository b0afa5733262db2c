import { type CoverageReport, isoOf, type LabObservation, type SituationName, situationNames } from './lab-types.js';

/**
 * What a session exercised (issue 12 section 2): per operation, the statuses served, organic or
 * forced with Prefer; and the situations met. Bounded: operations come from the spec and statuses
 * from HTTP, whatever the traffic. Plain, JSON-serialisable state.
 *
 * @example
 * const coverage = createCoverageState();
 * observeCoverage(coverage, observation);
 * missingCoverage(coverageReport(coverage), ['429', '401']); // [] when both were served
 */
export interface CoverageState {
  /** `operationId` -> method, path template and counts by status. */
  operations: Record<
    string,
    { method: string; path: string; statuses: Record<string, { organic: number; forced: number }> }
  >;
  situations: Record<SituationName, { count: number; firstAtMs: number | null }>;
}

export function createCoverageState(): CoverageState {
  const situations = {} as CoverageState['situations'];
  for (const name of situationNames) situations[name] = { count: 0, firstAtMs: null };
  return { operations: {}, situations };
}

/**
 * The operation that answered a request, as the spec writes it (`GET /pets/{petId}`): a HEAD the
 * mock answers with a GET operation (RFC 9110 §9.3.2) counts for that GET, under its method.
 */
export interface CoveredOperation {
  readonly method: string;
  readonly pathTemplate: string;
}

/**
 * Counts one request. `answeredBy` is the operation that answered it, or only its path as the spec
 * writes it (`/pets/{petId}`, with the request's method); the request's own path when absent.
 */
export function observeCoverage(
  state: CoverageState,
  observation: LabObservation,
  answeredBy?: string | CoveredOperation,
): CoverageState {
  if (observation.outcome === 'other') return state;
  if (observation.operationId !== null) {
    state.operations[observation.operationId] ??=
      typeof answeredBy === 'object'
        ? { method: answeredBy.method, path: answeredBy.pathTemplate, statuses: {} }
        : { method: observation.method, path: answeredBy ?? observation.path, statuses: {} };
    const operation = state.operations[observation.operationId]!;
    // A number key: an element access, no number-to-string conversion (the same "201" key).
    operation.statuses[observation.status] ??= { organic: 0, forced: 0 };
    const counts = operation.statuses[observation.status]!;
    if (observation.forced) counts.forced += 1;
    else counts.organic += 1;
  }
  // 401, 400 and 429 are what the client was served, forced ones included: a team asking "did our
  // suite ever see a 429?" wants to know whether its code met one, however it came.
  if (observation.status === 401) meet(state, '401', observation.atMs);
  if (observation.status === 400) meet(state, '400', observation.atMs);
  if (observation.status === 429) meet(state, '429', observation.atMs);
  if (observation.outcome === 'banned') meet(state, 'ban', observation.atMs);
  if (observation.deprecated) meet(state, 'deprecated-call', observation.atMs);
  if (observation.windowReset) meet(state, 'window-reset', observation.atMs);
  return state;
}

/** A function of the module, not a closure made on every request. */
function meet(state: CoverageState, name: SituationName, atMs: number): void {
  const situation = state.situations[name];
  situation.count += 1;
  situation.firstAtMs ??= atMs;
}

export function coverageReport(state: CoverageState): CoverageReport {
  const operations = Object.keys(state.operations)
    .sort()
    .map((operationId) => {
      const operation = state.operations[operationId]!;
      const statuses = Object.keys(operation.statuses)
        .map(Number)
        .sort((a, b) => a - b)
        .map((status) => ({ status, ...operation.statuses[String(status)]! }));
      return { operationId, method: operation.method, path: operation.path, statuses };
    });
  const situations = {} as CoverageReport['situations'];
  for (const name of situationNames) {
    const { count, firstAtMs } = state.situations[name];
    situations[name] = { met: count > 0, count, firstAt: firstAtMs === null ? null : isoOf(firstAtMs) };
  }
  return { operations, situations };
}

/**
 * Parses the `--min-coverage` list (`429,401,400`): names separated by commas, blanks ignored.
 * Throws one line naming the unknown names and listing the known ones.
 */
export function parseSituationList(text: string): SituationName[] {
  return validateSituations(
    text
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );
}

function validateSituations(names: readonly string[]): SituationName[] {
  const known = new Set<string>(situationNames);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 5).map((name) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name));
    throw new Error(
      `Unknown situation${unknown.length === 1 ? '' : 's'} ${shown.join(', ')}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''} in --min-coverage; known: ${situationNames.join(', ')}`,
    );
  }
  return [...new Set(names)] as SituationName[];
}

/**
 * The listed situations the report never met, in the order listed: the `--min-coverage` gate fails
 * when this is not empty. Throws on an unknown name (one line listing the known ones).
 *
 * @example missingCoverage(report, ['429', '401', '400']) // ['400'] when no 400 was served
 */
export function missingCoverage(
  report: Pick<CoverageReport, 'situations'> | { coverage: CoverageReport },
  required: readonly string[],
): SituationName[] {
  const situations = 'coverage' in report ? report.coverage.situations : report.situations;
  return validateSituations(required).filter((name) => !situations[name].met);
}
