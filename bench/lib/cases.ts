import type { ProbeRequest } from './http-probe.js';

/** The four load cases: a read, a write, a refusal before the store (401) and one after it (429). */
export type CaseId = 'get' | 'post' | '401' | '429';

export const caseIds: readonly CaseId[] = ['get', 'post', '401', '429'];

/** Which request a target gets for a case: Prism has no 429 state and serves without /v1. */
export type Dialect = 'mock' | 'prism';

export interface BenchCase {
  id: CaseId;
  /** Short label for the table. */
  label: string;
  expectedStatus: number;
  request(dialect: Dialect): ProbeRequest;
}

/** Enterprise plan: 1,000,000/min, so the limiter counts every request but never refuses one. */
const enterpriseKey = 'demo-enterprise';
/** A key with a budget of one request, spent before the 429 case is measured. */
export const exhaustedKey = 'bench-exhausted';
const postBody = '{"name":"bench","description":"x"}';

/**
 * The mock's config for the bench (passed with `--config`).
 * - `anonymous` is raised so the 401 case stays 401: without a key every request counts against the
 *   client address's anonymous budget (60/min by default) and would turn into 429s after 60.
 * - `bench-exhausted` allows one request; the bench spends it, so every measured request is a 429.
 * - `ban.enabled: false` keeps the 429 case on the plain rate-limited path; with bans on, the 11th
 *   refused request would switch to the `key_banned` path (also a 429, but a different branch).
 */
export const benchConfigYaml = `# Written by bench/run-bench.ts; see bench/lib/cases.ts for why each entry is here.
anonymous: {perMinute: 100000000, perDay: 100000000}
keys:
  - {key: ${exhaustedKey}, limits: {perMinute: 1, perDay: 1}}
ban: {enabled: false}
`;

const prefix = (dialect: Dialect) => (dialect === 'prism' ? '' : '/v1');

export const benchCases: Record<CaseId, BenchCase> = {
  get: {
    id: 'get',
    label: 'GET 200',
    expectedStatus: 200,
    request: (dialect) => ({
      method: 'GET',
      path: `${prefix(dialect)}/categories`,
      headers: { authorization: `Bearer ${enterpriseKey}` },
    }),
  },
  post: {
    id: 'post',
    label: 'POST 201',
    expectedStatus: 201,
    request: (dialect) => ({
      method: 'POST',
      path: `${prefix(dialect)}/categories`,
      headers: { authorization: `Bearer ${enterpriseKey}`, 'content-type': 'application/json' },
      body: postBody,
    }),
  },
  '401': {
    id: '401',
    label: 'GET 401',
    expectedStatus: 401,
    request: (dialect) => ({ method: 'GET', path: `${prefix(dialect)}/categories`, headers: {} }),
  },
  '429': {
    id: '429',
    label: 'GET 429',
    expectedStatus: 429,
    // Prism accepts any Bearer token and keeps no counters: the closest it has is a forced 429.
    request: (dialect): ProbeRequest =>
      dialect === 'prism'
        ? {
            method: 'GET',
            path: '/categories',
            headers: { authorization: `Bearer ${enterpriseKey}`, prefer: 'code=429' },
          }
        : { method: 'GET', path: '/v1/categories', headers: { authorization: `Bearer ${exhaustedKey}` } },
  },
};
