/**
 * petstore-kit: a stateful mock of the Petstore API and the building blocks to embed it.
 *
 * @example
 * import { startMockServer } from 'petstore-kit';
 * const mock = await startMockServer({ port: 0 });
 * console.log(mock.baseUrl); // http://127.0.0.1:PORT/v1
 */

export { defaultSpecPath, parseSpecText, readSpecFile } from '../spec/load-spec.js';
export type { OpenApiDocument } from '../spec/openapi-types.js';
export type { Category, ErrorBody, NewCategory } from '../spec/schemas.js';
export type { VirtualClock } from './core/clock.js';
export { createFixedClock, createVirtualClock, systemClock } from './core/clock.js';
export type { FaultKind, FaultSettings, FaultSettingsInput } from './core/config/fault-config.js';
export type { Limits, MockConfig, MockConfigInput } from './core/config/mock-config.js';
export { defaultPlans, demoKeys, parseMockConfig } from './core/config/mock-config.js';
export type { ErrorCode } from './core/errors.js';
export { errorCatalogue, HttpError } from './core/errors.js';
export type {
  ClockState,
  HealthState,
  MockApp,
  MockAppOptions,
  MockControls,
  RequestEvent,
  RequestObserver,
} from './core/mock-app.js';
export { createMockApp, mockStoreOptions } from './core/mock-app.js';
export type { CompiledOperation, CompiledSpec } from './core/spec/compiled-spec.js';
export { compileSpec } from './core/spec/compiled-spec.js';
export { createMemoryStore } from './core/state/memory-store.js';
export { defaultSessionName, sessionNamePattern } from './core/state/sessions.js';
export type {
  ClientHistory,
  HitInput,
  HitResult,
  SessionInfo,
  SessionStats,
  StateStore,
  StateStoreOptions,
} from './core/state/state-store.js';
export { StoreUnavailableError, TooManySessionsError } from './core/state/state-store.js';
export { storeOptionsFromConfig } from './core/state/store-options.js';
export type { Clock, Logger, MockRequest, MockResponse, TransportFault } from './core/types.js';
export { createNodeListener } from './server/node-adapter.js';
export type { RedisStoreOptions } from './server/redis-store.js';
export { connectRedisStore, StoreConfigError } from './server/redis-store.js';
export type { MockServerOptions, RunningMockServer } from './server/start-server.js';
export { readConfigFile, startMockServer } from './server/start-server.js';
