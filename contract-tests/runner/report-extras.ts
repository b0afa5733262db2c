import { readFile } from 'node:fs/promises';
import { looksLikeCredentialHeader } from '../../spec/credential-masking.js';
import { apiUrl } from '../lib/api-url.js';
import type { Exchange } from '../lib/exchange.js';
import { curlCommand, type SecretVariable, type SentRequest } from '../report/curl-command.js';
import { type FailureGroup, groupFailures } from '../report/failure-groups.js';
import { type InterfaceLinks, interfaceDocumentFile, interfaceLinks } from '../report/interface-links.js';
import type { CheckResult } from '../report/report-model.js';

/**
 * Keeps each request as it was sent (unmasked, in memory only) so that a failure's evidence can
 * become a curl. The URL is the server's own, also when the run went through Prism (Prism's port
 * is gone when the report is read).
 *
 * @example const recorder = createRequestRecorder(settings.baseUrl); new ContractHttpClient(target, state, log, { signal, hooks: { onSend: recorder.onSend } });
 */
export function createRequestRecorder(directBaseUrl: string): {
  onSend: (
    exchange: Exchange,
    sent: { headers: Record<string, string>; body: string | Uint8Array | undefined },
  ) => void;
  sent: (seq: number) => SentRequest | undefined;
} {
  const bySeq = new Map<number, SentRequest>();
  return {
    onSend: (exchange, sent) => {
      bySeq.set(exchange.seq, {
        method: exchange.request.method,
        url: apiUrl(directBaseUrl, exchange.request.path),
        headers: { ...sent.headers },
        body: sent.body,
      });
    },
    sent: (seq) => bySeq.get(seq),
  };
}

/**
 * The shell variables that stand for the run's secrets in a curl: the keys by the names the CLI
 * reads them from, a credential-like -H header as PETSTORE_HEADER_<NAME>.
 *
 * @example secretVariables({ apiKey: 'k-1', rateLimitKey: undefined, extraHeaders: { 'x-session': 's' } })
 * // [{ value: 'k-1', variable: 'PETSTORE_API_KEY' }, { value: 's', variable: 'PETSTORE_HEADER_X_SESSION' }]
 */
export function secretVariables(settings: {
  apiKey: string;
  rateLimitKey: string | undefined;
  extraHeaders: Record<string, string>;
}): SecretVariable[] {
  return [
    { value: settings.apiKey, variable: 'PETSTORE_API_KEY' },
    ...(settings.rateLimitKey === undefined
      ? []
      : [{ value: settings.rateLimitKey, variable: 'PETSTORE_RATE_LIMIT_KEY' }]),
    ...Object.entries(settings.extraHeaders)
      .filter(([name]) => looksLikeCredentialHeader(name))
      .map(([name, value]) => ({
        value,
        variable: `PETSTORE_HEADER_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`,
      })),
  ];
}

/**
 * The run's failures grouped by cause, each with a curl of its evidence's request when the run
 * kept that request.
 */
export function failureGroupsWithCurl(
  results: readonly CheckResult[],
  sent: (seq: number) => SentRequest | undefined,
  secrets: readonly SecretVariable[],
): FailureGroup[] {
  return groupFailures(results).map((group) => {
    const seq = group.evidence?.seq;
    const request = seq === undefined ? undefined : sent(seq);
    return request === undefined ? group : { ...group, curl: curlCommand(request, secrets) };
  });
}

/** Links from the report's rule ids to the shipped interface document; undefined when it cannot be read. */
export async function reportInterfaceLinks(
  results: readonly CheckResult[],
  version: string,
): Promise<InterfaceLinks | undefined> {
  try {
    const markdown = await readFile(interfaceDocumentFile, 'utf8');
    return interfaceLinks(new Set(results.map((result) => result.rule)), markdown, { version, cwd: process.cwd() });
  } catch {
    return undefined;
  }
}
