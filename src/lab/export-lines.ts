import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { keyDigestHex } from '../../spec/interface/key-id.js';
import type { FaultKind } from '../core/config/fault-config.js';
import type { Scenario } from '../core/config/scenario-file.js';
import { maxExportBodyBytes } from '../core/state/request-log.js';
import { type ExportLine, exportVersion, type StateLine } from './export-line-schema.js';
import type { LabLimits } from './lab-types.js';

// The export's writer: each line typed by its schema (export-line-schema.ts), not run through it, so
// an export of the whole log costs JSON.stringify alone; export-lines.test.ts parses what it writes.

/** The export's state line (see `stateLineSchema`). */
export function toStateLine(start: {
  atMs: number | null;
  logSize: number;
  dropped: { count: number; firstAtMs: number; lastAtMs: number } | null;
  omittedClients: number;
  scenario: Scenario;
}): string {
  const line: StateLine = {
    v: exportVersion,
    type: 'state',
    time: start.atMs === null ? null : new Date(start.atMs).toISOString(),
    logSize: start.logSize,
    dropped:
      start.dropped === null
        ? null
        : {
            count: start.dropped.count,
            from: new Date(start.dropped.firstAtMs).toISOString(),
            to: new Date(start.dropped.lastAtMs).toISOString(),
          },
    omittedClients: start.omittedClients,
    scenario: start.scenario,
  };
  return JSON.stringify(line);
}

const encoder = new TextEncoder();

/** `client-` + the first 12 hex digits of SHA-256(key): stable, and says nothing of the key. */
export function keyPseudonym(key: string): string {
  return keyPseudonymFromDigest(keyDigestHex(key));
}

/** The same from a digest the core already has (`HitInput.keyDigest`, SHA-256 hex of the key). */
export function keyPseudonymFromDigest(digestHex: string): string {
  return `client-${digestHex.slice(0, 12).toLowerCase()}`;
}

export function anonymousPseudonym(address: string): string {
  return `anonymous-${bytesToHex(sha256(encoder.encode(address))).slice(0, 12)}`;
}

/** What the core knows of a request it served, for its export line. */
export interface ExportedRequest {
  timeMs: number;
  method: string;
  url: string;
  /** SHA-256 hex of the valid key (auth `key`). */
  keyDigest?: string | null;
  clientAddress?: string | null;
  auth: ExportLine['auth'];
  plan: string;
  limits: LabLimits;
  status: number;
  code: string | null;
  operationId: string | null;
  prefer?: string | null;
  contentType?: string | null;
  body?: string | null;
  fault?: FaultKind | undefined;
  delayMs?: number | undefined;
}

/**
 * One export line for a request the core served: the integration calls it for each log entry when
 * `GET /__mock/requests?format=jsonl` is asked for.
 *
 * @example toExportLine({ timeMs, method: 'GET', url: '/v1/categories', keyDigest, clientAddress: '127.0.0.1', auth: 'key', plan: 'free', limits, status: 200, code: null, operationId: 'listCategories' })
 */
export function toExportLine(entry: ExportedRequest): string {
  const isKey = entry.auth === 'key' && typeof entry.keyDigest === 'string';
  const line: ExportLine = {
    v: exportVersion,
    time: new Date(entry.timeMs).toISOString(),
    method: entry.method,
    url: entry.url,
    client: isKey ? keyPseudonymFromDigest(entry.keyDigest!) : anonymousPseudonym(entry.clientAddress ?? 'local'),
    kind: isKey ? 'key' : 'anonymous',
    auth: isKey ? 'key' : entry.auth === 'invalid' ? 'invalid' : 'none',
    plan: isKey ? entry.plan : 'anonymous',
    limits: { perMinute: entry.limits.perMinute, perDay: entry.limits.perDay },
    status: entry.status,
    code: entry.code,
    operationId: entry.operationId,
    prefer: entry.prefer ?? null,
    contentType: entry.contentType ?? null,
    body: entry.body === undefined || entry.body === null ? null : entry.body.slice(0, maxExportBodyBytes),
  };
  if (entry.fault !== undefined) line.fault = entry.fault;
  if (entry.delayMs !== undefined && entry.delayMs > 0) line.delayMs = entry.delayMs;
  return JSON.stringify(line);
}
