import type { CheckDefinition, CheckRun } from '../lib/check.js';

/**
 * The `check` function an area's body is given (`defineArea` in lib/check.ts): the functions that
 * register one group of an area's checks take it, so an area reads as the list of its groups.
 */
export type DefineCheck = (definition: CheckDefinition, body: (run: CheckRun) => Promise<void>) => void;
