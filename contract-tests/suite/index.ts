import type { CheckArea } from '../lib/check.js';
import authentication from './01-authentication.contract.js';
import listCategories from './02-list-categories.contract.js';
import createCategory from './03-create-category.contract.js';
import validation from './04-validation.contract.js';
import otherOperations from './05-other-operations.contract.js';
import rateLimitHeaders from './06-rate-limit-headers.contract.js';
import rateLimitExceeded from './07-rate-limit-exceeded.contract.js';
import everyResponse from './99-every-response.contract.js';

/**
 * The whole suite, in the order it runs: the last area judges every exchange of the run, so it
 * comes last.
 */
export const suiteAreas: readonly CheckArea[] = [authentication, listCategories, createCategory, validation, otherOperations, rateLimitHeaders, rateLimitExceeded, everyResponse];
