import type { Plan } from '../reference/plans.js';
import type { ReferenceHooks } from '../reference/reference-hooks.js';
import { type ReferenceServer, referenceKeyPlans, startReferenceServer } from '../reference/reference-server.js';
import type { WitnessStep } from './witness.js';

/** The classes of docs/bug-taxonomy.md, in its order. */
export const taxonomyClasses = [
  'values',
  'framing',
  'methods',
  'credentials',
  'keys and caching',
  'time',
  'limits',
  'concurrency',
  'error paths',
] as const;
export type TaxonomyClass = (typeof taxonomyClasses)[number];

/** What a bug's hooks may read: the server's clock and its keys. */
interface BugContext {
  clock: { now(): number };
  keys: ReadonlyMap<string, Plan>;
}

/**
 * One bug server: the reference Petstore with one or two lines a real backend adds. Never shipped.
 *
 * @example
 * { id: 'values-name-lower-cased', taxonomyClass: 'values', models: 'a citext column', adds: 'name = name.toLowerCase()',
 *   witness: [post({ name: 'Dog' })], hooks: () => ({ create: (draft) => ({ ...draft, name: draft.name.toLowerCase() }) }) }
 */
export interface BugServer {
  /** Stable id: `<class>-<what>`, kebab-case. */
  id: string;
  taxonomyClass: TaxonomyClass;
  /** The real-world bug it models, in one line. */
  models: string;
  /** The line(s) the backend adds, as a reader would see them in its code. */
  adds: string;
  /** Why the checks it fails vary from run to run (a race on real time); then only the verdict is pinned. */
  racy?: string;
  /** Requests on which it answers differently from the reference (witness.ts): proof that its line is live. */
  witness: readonly WitnessStep[];
  /** Fresh hooks for each server (a bug's state, such as a cache, lives in their closure). */
  hooks(context: BugContext): ReferenceHooks;
}

/**
 * Starts the reference server with one bug's hooks on 127.0.0.1, a free port.
 *
 * @example const server = await startBugServer(bug, createVirtualClock({ startMs: Date.now() }));
 */
export function startBugServer(bug: BugServer, clock: { now(): number }): Promise<ReferenceServer> {
  return startReferenceServer({ clock, hooks: bug.hooks({ clock, keys: referenceKeyPlans }) });
}
