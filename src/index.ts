/**
 * petstore-kit: a stateful mock of the Petstore API and the building blocks to embed it.
 *
 * @example
 * import { startMockServer } from 'petstore-kit';
 * const mock = await startMockServer({ port: 0 });
 * console.log(mock.baseUrl); // http://127.0.0.1:PORT/v1
 */
export { createMockApp, mockStoreOptions } from './core/mock-app.js';
export type {
  MockApp,
  MockAppOptions,
  MockControls,
  ClockState,
  HealthState,
  RequestEvent,
  RequestObserver,
} from './core/mock-app.js';
export { createMemoryStore } from './core/state/memory-store.js';
export { defaultSessionName, sessionNamePattern } from './core/state/sessions.js';
export { storeOptionsFromConfig } from './core/state/store-options.js';
export { StoreUnavailableError, TooManySessionsError } from './core/state/state-store.js';
export type {
  StateStore,
  StateStoreOptions,
  HitInput,
  HitResult,
  ClientHistory,
  SessionInfo,
  SessionStats,
} from './core/state/state-store.js';
export { connectRedisStore, StoreConfigError } from './server/redis-store.js';
export type { RedisStoreOptions } from './server/redis-store.js';
export { compileSpec } from './core/spec/compiled-spec.js';
export type { CompiledSpec, CompiledOperation } from './core/spec/compiled-spec.js';
export { createVirtualClock, createFixedClock, systemClock } from './core/clock.js';
export type { VirtualClock } from './core/clock.js';
export { parseMockConfig, defaultPlans, demoKeys } from './core/config/mock-config.js';
export type { MockConfig, MockConfigInput, Limits } from './core/config/mock-config.js';
export { errorCatalogue, HttpError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export type { MockRequest, MockResponse, Clock, Logger } from './core/types.js';
export { startMockServer, readConfigFile } from './server/start-server.js';
export type { MockServerOptions, RunningMockServer } from './server/start-server.js';
export { createNodeListener } from './server/node-adapter.js';
export { readSpecFile, parseSpecText, defaultSpecPath } from '../spec/load-spec.js';
export type { OpenApiDocument } from '../spec/openapi-types.js';
export type { Category, NewCategory, ErrorBody } from '../spec/schemas.js';
