/** The built-in prototypes a polluting merge or a `__proto__` assignment would reach. */
const guarded = {
  'Object.prototype': Object.prototype,
  'Array.prototype': Array.prototype,
  'Function.prototype': Function.prototype,
  'String.prototype': String.prototype,
} as const;

/**
 * A record of the own keys of the built-in prototypes, to compare after hostile input: a key that
 * appears (or changes its value) means a request reached the process-wide prototypes.
 *
 * @example const before = snapshotPrototypes(); ...; expect(prototypeChanges(before)).toEqual([]);
 */
export function snapshotPrototypes(): Map<string, Map<PropertyKey, unknown>> {
  const snapshot = new Map<string, Map<PropertyKey, unknown>>();
  for (const [name, prototype] of Object.entries(guarded)) {
    const keys = new Map<PropertyKey, unknown>();
    for (const key of Reflect.ownKeys(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
      keys.set(key, descriptor && 'value' in descriptor ? descriptor.value : descriptor?.get);
    }
    snapshot.set(name, keys);
  }
  return snapshot;
}

/** Keys added, removed or reassigned since `before`, as readable strings; empty when untouched. */
export function prototypeChanges(before: Map<string, Map<PropertyKey, unknown>>): string[] {
  const changes: string[] = [];
  const after = snapshotPrototypes();
  for (const [name, keys] of after) {
    const old = before.get(name)!;
    for (const [key, value] of keys) {
      if (!old.has(key)) changes.push(`${name}.${String(key)} was added`);
      else if (old.get(key) !== value) changes.push(`${name}.${String(key)} was changed`);
    }
    for (const key of old.keys()) if (!keys.has(key)) changes.push(`${name}.${String(key)} was removed`);
  }
  // The classic probe: a fresh object must not inherit a planted property.
  if (({} as Record<string, unknown>).polluted !== undefined) changes.push('({}).polluted is defined');
  return changes;
}
