import type { CheckArea } from '../lib/check.js';
import authentication from './01-authentication.contract.js';
import listCategories from './02-list-categories.contract.js';
import createCategory from './03-create-category.contract.js';
import validation from './04-validation.contract.js';
import coveragePhase from './05-coverage-phase.contract.js';
import errorPaths from './06-error-paths.contract.js';
import otherOperations from './07-other-operations.contract.js';
import rateLimitHeaders from './08-rate-limit-headers.contract.js';
import rateLimitExceeded from './09-rate-limit-exceeded.contract.js';
import rateLimitTime from './10-rate-limit-time.contract.js';
import dataRoundTrip from './98-data-round-trip.contract.js';
import everyResponse from './99-every-response.contract.js';
import valueLengths from './025-value-lengths.contract.js';
import generatedValues from './035-generated-values.contract.js';
import generatedCredentials from './036-generated-credentials.contract.js';
import generatedMethods from './037-generated-methods.contract.js';
import generatedFields from './038-generated-fields.contract.js';
import conditionalRequests from './039-conditional-requests.contract.js';
import contentNegotiation from './045-content-negotiation.contract.js';
import listAll from './065-list-all.contract.js';
import mainKeyExhausted from './097-main-key-exhausted.contract.js';

/**
 * The whole suite, in the order it runs. The deterministic coverage phase comes after the seeded
 * fast-check phase's area in the file order only for historical ids; "list all" runs after every
 * creating check, the budget checks alone, and the last area judges every exchange of the run.
 */
export const suiteAreas: readonly CheckArea[] = [
  authentication,
  listCategories,
  valueLengths,
  createCategory,
  coveragePhase,
  validation,
  generatedValues,
  generatedCredentials,
  generatedMethods,
  generatedFields,
  conditionalRequests,
  contentNegotiation,
  errorPaths,
  listAll,
  otherOperations,
  rateLimitHeaders,
  rateLimitExceeded,
  rateLimitTime,
  mainKeyExhausted,
  dataRoundTrip,
  everyResponse,
];
