import type { defineArea } from './check.js';

/**
 * The `check` function an area's body is given (`defineArea`): registers one check, and the run keeps
 * the order of registration. Named so that an area can hand it to one function per group of checks.
 *
 * @example function checkUnknownPaths(check: RegisterCheck): void { check({ id: 'errors.unknown-path', ... }, async (run) => { ... }); }
 */
export type RegisterCheck = Parameters<Parameters<typeof defineArea>[2]>[0];
