import { compileSpecDefinition } from '../../spec/compile-spec.js';
import { readSpecFile } from '../../spec/load-spec.js';

/**
 * What the generic layer's runs over a corpus of documents share (generic-corpus.test.ts and
 * `npm run corpus:kit-all`): the mock's config and the sample of operations a bounded run checks.
 */

/** Keys and limits of a mock that a whole run may use: its own session, no anonymous budget to run out of. */
export const corpusMockConfig = { anonymous: { perMinute: 1_000_000, perDay: 100_000_000 } };

/** Every `everyNth` operation of the document, in document order (from the first); undefined for all of them. */
export async function sampledOperations(file: string, everyNth: number): Promise<string[] | undefined> {
  if (everyNth === 1) return undefined;
  const definition = compileSpecDefinition(await readSpecFile(file));
  return definition.operations
    .filter((_operation, index) => index % everyNth === 0)
    .map((operation) => operation.operationId);
}
