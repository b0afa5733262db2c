import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContractReport } from '../../contract-tests/report/report-model.js';
import { runContract } from '../../contract-tests/runner/run-contract.js';
import type { PlainRequest, PlainResponse } from '../contract-kit/reference/reference-petstore.js';
import { referenceKeys, startReferenceServer } from '../contract-kit/reference/reference-server.js';
import { createVirtualClock } from '../contract-kit/reference/virtual-clock.js';

/** What a hostile server puts in its answers: markup, a closing style tag, line separators. */
const hostileText =
  '<script>alert(1)</script> "><img src=x onerror=alert(2)> </style><b>x</b> \u2028\u2029 {{constructor}}';

/**
 * A broken and hostile Petstore: the reference server (test/contract-kit/reference) whose 401 is a
 * plain-text page with markup in it that echoes the Authorization it was sent (the run's keys, and
 * the near misses the auth probes derive from them), and whose every answer carries a request id
 * with markup.
 */
function hostileAnswer(response: PlainResponse, request: PlainRequest): PlainResponse {
  const headers = { ...response.headers, 'X-Request-Id': '"><script>alert(3)</script>' };
  if (response.status === 401)
    return {
      ...response,
      headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' },
      body: `Unauthorized ${hostileText} you sent: ${request.headers.authorization ?? 'nothing'}`,
    };
  return { ...response, headers };
}

/**
 * A real run of the kit (default profile, with a rate-limit key) against the broken server, on a
 * virtual clock (no real waiting): failures by cause, INCONCLUSIVE cells and rate-limit traffic,
 * every secret masked by the run's one masking step. The fixture of the HTML report's tests.
 *
 * @example const { report, keys } = await brokenRunReport();
 */
export async function brokenRunReport(): Promise<{ report: ContractReport; keys: readonly string[] }> {
  const clock = createVirtualClock({ startMs: Date.parse('2026-03-02T10:00:20.500Z'), followRealTime: true });
  const server = await startReferenceServer({ clock, hooks: { response: hostileAnswer } });
  try {
    const { report } = await runContract({
      baseUrl: server.baseUrl,
      apiKey: referenceKeys.main,
      rateLimitKey: referenceKeys.limited,
      clock,
      timeoutSeconds: 2,
      // The shipped document, named as a user in the project's folder names it (no machine path in a screenshot).
      specPath: relative(process.cwd(), fileURLToPath(new URL('../../spec/petstore.openapi.yaml', import.meta.url))),
      runId: 'html-fixture',
      seed: 45,
      // Two minutes of waiting on purpose (free on the virtual clock): the rate-limit key's 429, its Retry-After and the retry.
      windowWaitSeconds: 120,
      log: () => {},
    });
    return { report, keys: [referenceKeys.main, referenceKeys.limited] };
  } finally {
    await server.close();
  }
}
