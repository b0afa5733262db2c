import type { BugServer } from './bug-server.js';
import { concurrencyBugs } from './concurrency.js';
import { credentialBugs } from './credentials.js';
import { errorPathBugs } from './error-paths.js';
import { framingBugs } from './framing.js';
import { keyAndCacheBugs } from './keys-and-caching.js';
import { limitBugs } from './limits.js';
import { methodBugs } from './methods.js';
import { timeBugs } from './time.js';
import { valueBugs } from './values.js';

/** Every bug server, in the order of docs/bug-taxonomy.md. */
export const bugCorpus: readonly BugServer[] = [
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
