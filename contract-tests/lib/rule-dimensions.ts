/** The dimensions of the rule matrix (rule-matrix.ts): every way a server can get a rule wrong, and what a cell holds. */
export const dimensions = [
  {
    id: 'arithmetic',
    title: 'Exact arithmetic',
    means: 'the numbers are exactly right, not only in the right direction',
  },
  {
    id: 'time',
    title: 'Time',
    means:
      'every window the interface names (minute, day), the moment one rolls over, what a client sees after waiting what it was told',
  },
  { id: 'concurrency', title: 'Concurrency', means: 'what a burst sent in parallel gets, not only a sequence' },
  {
    id: 'statuses',
    title: 'Every status',
    means:
      'every status a server can emit, those its HTTP framework produces by itself included (404, 405, 413, 415, 406, HEAD, OPTIONS)',
  },
  {
    id: 'round-trip',
    title: 'Data round trip',
    means: 'what was sent, what the 201 returned and every later list are one thing',
  },
  {
    id: 'raw-input',
    title: 'Raw input',
    means:
      'inputs JSON.stringify cannot write: raw bytes, invalid UTF-8, odd or repeated property names, BOM, near-JSON, odd credentials and paths',
  },
  {
    id: 'order',
    title: 'Order of checks',
    means: 'which check a server applies first when several apply (key, limit, path, method, body)',
  },
  {
    id: 'operation-key',
    title: 'Operation x key',
    means: 'every operation with every key: the main key, the rate-limit key, none',
  },
  {
    id: 'negotiation',
    title: 'Content negotiation',
    means: 'Accept and Content-Type in their legal spellings and the foreign ones',
  },
] as const;

export type Dimension = (typeof dimensions)[number]['id'];

/** A cell: the checks that judge it, or why there is nothing to judge. */
export type MatrixEntry = { checks: readonly string[] } | { reason: string };

export interface RuleRow {
  /** Where the rule stands in the interface document. */
  rule: string;
  /** The rule, in a line. */
  says: string;
  cells: Record<Dimension, MatrixEntry>;
}
