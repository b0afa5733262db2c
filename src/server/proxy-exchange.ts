import type { SequenceTicket } from '../../spec/interface/key-sequences.js';
import type { ResourceTicket } from '../../spec/interface/resource-sequences.js';
import type { LabLimits } from '../lab/lab-types.js';
import type { JudgedAnswer } from './proxy-tallies.js';

/**
 * One request as it left for the upstream; the judging proxy's handle until its answer arrives
 * (proxy-judge.ts makes it, the client side and the export read it).
 */
export interface PendingExchange {
  seq: number;
  sentAtMs: number;
  method: string;
  /** As the client sent it, below the proxy's origin: `/v1/categories?x=1`. */
  url: string;
  operationId: string | null;
  deprecated: boolean;
  keyDigest: string | null;
  /** The pseudonym the key (or the anonymous address) is shown as. */
  client: string;
  clientAddress: string;
  prefer: string | null;
  /** A browser's CORS preflight: forwarded, judged on neither side. */
  preflight: boolean;
  contentType: string | null;
  /** The first bytes of the request body, for the export (set by the forwarder once read). */
  body: string | null;
  /** Where the request stood in its key's sequence when it left: decides whether the pair rules apply. */
  sequence: SequenceTicket<JudgedAnswer>;
  /** Where the request stood among the categories created before it left (data.round-trip). */
  resources: ResourceTicket;
  /** Cleared when the answer is judged; only the key is held, never the bearer token. */
  key: string | null;
  /** Every credential the request carried (header, query, cookie), held and cleared with `key`. */
  secrets: readonly string[];
}

/** What the client side of the judge made of an exchange: the plan and limits its answer showed. */
export interface ClientSide {
  plan: string;
  limits: LabLimits;
  /** A key the upstream accepted (a key it answered 401 is not one). */
  isKey: boolean;
}

/** The request's credentials are dropped once its answer is judged (or none came). */
export function forget(pending: PendingExchange): void {
  pending.key = null;
  pending.secrets = [];
}
