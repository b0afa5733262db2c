import type { BugServer } from './bug-server.js';
import { concurrencyBugs } from './concurrency.js';
import { credentialBugs } from './credentials.js';
import { errorPathBugs } from './error-paths.js';
import { framingBugs } from './framing.js';
import { keyAndCacheBugs } from './keys-and-caching.js';
import { limitBugs } from './limits.js';
import { methodBugs } from './methods.js';
import { secondBatchCredentialBugs } from './second-batch/credentials.js';
import { secondBatchConcurrencyBugs, secondBatchErrorBugs } from './second-batch/errors-and-concurrency.js';
import { secondBatchFramingBugs, secondBatchMethodBugs } from './second-batch/framing-and-methods.js';
import { secondBatchKeyBugs } from './second-batch/keys-and-caching.js';
import { secondBatchLimitBugs, secondBatchTimeBugs } from './second-batch/time-and-limits.js';
import { secondBatchValueBugs } from './second-batch/values.js';
import { firstFifteenBugs } from './third-batch/first-fifteen.js';
import { secondRoundBugs } from './third-batch/second-round.js';
import { timeBugs } from './time.js';
import { valueBugs } from './values.js';

/** The first batch (issue 39, decision 035): the bugs the kit's generators were then written to catch. */
const firstBatch: readonly BugServer[] = [
  ...valueBugs,
  ...framingBugs,
  ...methodBugs,
  ...credentialBugs,
  ...keyAndCacheBugs,
  ...timeBugs,
  ...limitBugs,
  ...concurrencyBugs,
  ...errorPathBugs,
];

/**
 * The second batch (decision 039): written from the taxonomy and from what real backends ship, without reading
 * the kit's checks, and measured before the kit changed: the kit's value is what it catches on servers it was not
 * written from.
 */
const secondBatch: readonly BugServer[] = [
  ...secondBatchValueBugs,
  ...secondBatchFramingBugs,
  ...secondBatchMethodBugs,
  ...secondBatchCredentialBugs,
  ...secondBatchKeyBugs,
  ...secondBatchTimeBugs,
  ...secondBatchLimitBugs,
  ...secondBatchConcurrencyBugs,
  ...secondBatchErrorBugs,
];

/**
 * The third batch (decision 054): fifteen faults written down by the red team before it read the corpus's list,
 * each one line a conforming server does not have; measured before the kit changed.
 */
const thirdBatch: readonly BugServer[] = [...firstFifteenBugs, ...secondRoundBugs];

/** The batches by name, for `npm run kit:bug-corpus -- --batch second`. */
export const corpusBatches = { first: firstBatch, second: secondBatch, third: thirdBatch } as const;

/** Every bug server, batch by batch, each in the order of docs/bug-taxonomy.md. */
export const bugCorpus: readonly BugServer[] = [...firstBatch, ...secondBatch, ...thirdBatch];
