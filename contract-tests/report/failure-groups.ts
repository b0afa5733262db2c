import type { CheckResult, FailureGroup } from './report-model.js';

export type { FailureGroup } from './report-model.js';

/** The column the coverage matrix uses for checks without an operation. */
const everyResponse = '(every response)';

/**
 * The FAIL results of a run, grouped by cause, groups in the order their first failure appears.
 *
 * @example groupFailures(report.results).map((group) => group.cause) // ['the 401 body is not a JSON Error', ...]
 */
export function groupFailures(results: readonly CheckResult[]): FailureGroup[] {
  type Building = FailureGroup & { messages: Set<string>; seqs: Set<number> };
  const groups: Building[] = [];
  const bySignature = new Map<string, Building>();
  for (const result of results) {
    if (result.status !== 'FAIL') continue;
    const message = result.message ?? result.title;
    const signature = causeSignature(message);
    const firstSeq = result.evidence.find((evidence) => evidence.seq !== undefined)?.seq;
    // One response that breaks several checks is one cause, whatever their messages say (a 401
    // without a body fails its auth probe and the every-response checks that judge it again).
    let group =
      bySignature.get(signature) ??
      (firstSeq === undefined ? undefined : groups.find((candidate) => candidate.seqs.has(firstSeq)));
    if (group === undefined) {
      group = {
        cause: message,
        signature,
        rules: [],
        operations: [],
        checks: [],
        evidence: result.evidence[0],
        messages: new Set(),
        seqs: new Set(),
      };
      groups.push(group);
    }
    bySignature.set(signature, group);
    if (group.signature === signature) group.messages.add(withoutCounterexample(message));
    if (firstSeq !== undefined) group.seqs.add(firstSeq);
    if (!group.rules.includes(result.rule)) group.rules.push(result.rule);
    const operation = result.operation ?? everyResponse;
    if (!group.operations.includes(operation)) group.operations.push(operation);
    group.checks.push({ id: result.id, rule: result.rule, title: result.title, operation: result.operation });
    group.evidence ??= result.evidence[0];
  }
  return groups.map(({ messages, seqs: _seqs, ...group }) => ({
    ...group,
    cause: messages.size === 1 ? [...messages][0]! : group.signature,
  }));
}

/**
 * A failure message with what varies between places taken out.
 *
 * @example causeSignature('expected 401 for near miss: the key plus one character, got 201') // 'expected 401, got 2xx'
 * @example causeSignature('id 17 is not unique: it was already returned by create.ok') // 'id # is not unique: it was already returned by create.ok'
 */
export function causeSignature(message: string): string {
  return withoutCounterexample(message)
    .replace(
      /expected (\d{3}) for .*, got (\d{3})/s,
      (_match, expected: string, got: string) =>
        `expected ${expected}, got ${expected[0] === got[0] ? got : `${got[0]}xx`}`,
    )
    .replace(/https?:\/\/[^\s)\]]*[^\s)\].,:;]/g, '<url>')
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/contract-test-[0-9a-f]+[\w-]*/g, 'contract-test-…')
    .replace(/\b\d+(\.\d+)?\b/g, (number) => (/^[1-5]\d\d$/.test(number) ? number : '#'));
}

function withoutCounterexample(message: string): string {
  return message
    .replace(/\s*\(fast-check seed [^)]*counterexample .*\)$/s, '')
    .replace(/\s*\(fast-check seed -?\d+\)$/, '');
}

/**
 * The group's checks by operation, each as the first part of its title ("missing Authorization",
 * "invalid key"), for a line per operation.
 *
 * @example checksByOperation(group) // [['GET /categories', ['missing Authorization', 'invalid key']], ...]
 */
export function checksByOperation(group: FailureGroup): [string, string[]][] {
  const byOperation = new Map<string, string[]>();
  for (const check of group.checks) {
    const operation = check.operation ?? everyResponse;
    const titles = byOperation.get(operation) ?? [];
    titles.push(check.title.split(' -> ')[0]!);
    byOperation.set(operation, titles);
  }
  return [...byOperation.entries()];
}
