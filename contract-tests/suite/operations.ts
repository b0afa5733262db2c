import type { ApiRequest } from '../lib/http-client.js';

/** The operations the interface lists, as the suite calls them (paths relative to the base URL). */
export interface SuiteOperation {
  operationId: string;
  method: 'GET' | 'POST';
  /** A concrete path; `/pets/1` stands for `/pets/{petId}`. */
  path: string;
  /** `METHOD /template` as the report shows it. */
  label: string;
}

export const listCategories: SuiteOperation = {
  operationId: 'listCategories',
  method: 'GET',
  path: '/categories',
  label: 'GET /categories',
};
export const createCategory: SuiteOperation = {
  operationId: 'createCategory',
  method: 'POST',
  path: '/categories',
  label: 'POST /categories',
};
// The interface shows neither the type of petId nor any pet; a small number is the most ordinary guess, and two
// digits show a server that matches the path too narrowly.
export const getPetById: SuiteOperation = {
  operationId: 'getPetById',
  method: 'GET',
  path: '/pets/10',
  label: 'GET /pets/{petId}',
};
export const listStoreOrders: SuiteOperation = {
  operationId: 'listStoreOrders',
  method: 'GET',
  path: '/store/orders',
  label: 'GET /store/orders',
};

/** Every operation of interface section 5.2 ("applies to every operation"). */
export const allOperations = [listCategories, createCategory, getPetById, listStoreOrders];

/**
 * The request fields that name an operation.
 *
 * @example run.send({ ...callOf(listCategories), authorization: run.bearer(), identity: 'main' })
 */
export function callOf(operation: SuiteOperation): Pick<ApiRequest, 'operationId' | 'method' | 'path'> {
  return { operationId: operation.operationId, method: operation.method, path: operation.path };
}
