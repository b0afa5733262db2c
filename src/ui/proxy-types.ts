import type { LabReport } from '../lab/lab-types.js';

/**
 * The shapes of the judging proxy's report (`GET /__mock/report` in proxy mode, `--report FILE`),
 * shared by the proxy (src/server/proxy-judge.ts) and its dashboard panel (proxy-panel.ts), as
 * lab-types.ts is for the mock's. Plain data; keys appear only as pseudonyms.
 */
export interface ProxyEvidence {
  seq: number;
  time: string;
  /** `GET /v1/categories (client-5e3f0c2a9b1d)`: never the key. */
  request: string;
  status: number;
  detail: string;
  header?: string;
  field?: string;
}

export interface ServerRuleResult {
  id: string;
  rule: string;
  title: string;
  outcome: 'pass' | 'fail' | 'not-exercised';
  judged: number;
  failed: number;
  evidence: ProxyEvidence[];
  /** Failing responses beyond the examples kept. */
  moreFailures: number;
}

export interface ProxyReport {
  kind: 'petstore-proxy-report';
  upstream: string;
  startedAt: string;
  generatedAt: string;
  requests: {
    forwarded: number;
    answered: number;
    /** Requests the upstream never answered: the proxy answered 502, judged as nothing. */
    upstreamFailures: number;
    /** Requests whose client went away before the answer was complete: not judged. */
    abandonedByClient: number;
    /** Answers whose body was longer than the bound: forwarded whole, their content not judged. */
    tooLargeToJudge: number;
  };
  server: {
    outcome: 'pass' | 'fail';
    rules: ServerRuleResult[];
    /** What the interface leaves open, and what the proxy could not judge. */
    information: string[];
  };
  client: LabReport & { outcome: 'pass' | 'fail' };
  limits: { keysFollowed: number; keysNotFollowed: number; exportLinesDropped: number };
}
