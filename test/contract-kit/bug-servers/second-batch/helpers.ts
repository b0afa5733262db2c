import type { ReferenceHooks } from '../../reference/reference-hooks.js';
import type { Category, PlainRequest, PlainResponse } from '../../reference/reference-petstore.js';
import { isCategoriesPath } from '../wire.js';

/** Small pieces the second batch of bug servers shares (the first batch's are in ../wire.ts). */

export function isCreate(request: PlainRequest): boolean {
  return request.method === 'POST' && isCategoriesPath(request);
}

export function isListing(request: PlainRequest): boolean {
  return request.method === 'GET' && isCategoriesPath(request);
}

/** The answer turned into a 500 in the Error shape, its other headers (the rate headers) kept. */
export function serverError(response: PlainResponse, message: string): PlainResponse {
  return {
    ...response,
    status: 500,
    headers: { ...response.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ code: 'internal_error', message, status: 500 }),
  };
}

/**
 * Hooks of a database that refuses some valid inserts with an error the app does not handle: the insert is rolled
 * back (the category never shows in a list) and the client gets a 500.
 */
export function insertFailsWhen(
  fails: (draft: Category, stored: readonly Category[]) => boolean,
  message: string,
): ReferenceHooks {
  const failed = new Set<number>();
  return {
    create: (draft, { stored }) => {
      if (
        fails(
          draft,
          stored.filter((category) => !failed.has(category.id)),
        )
      )
        failed.add(draft.id);
      return draft;
    },
    list: (stored) => stored.filter((category) => !failed.has(category.id)),
    response: (response, request) => {
      if (!isCreate(request) || response.status !== 201) return response;
      const { id } = JSON.parse(response.body) as { id: number };
      return failed.has(id) ? serverError(response, message) : response;
    },
  };
}
