/**
 * Node's `require`, for the modules the library loads on first use (the YAML reader, the schema validator,
 * re2js); undefined in a page. Only Node has `process.getBuiltinModule`, and no bundler sees a `require` of
 * those modules here, so a page's bundle keeps them in chunks of their own.
 *
 * @example const yaml = nodeRequire()?.('yaml');
 */
export function nodeRequire(): ((id: string) => unknown) | undefined {
  const node = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }).process;
  if (node?.getBuiltinModule === undefined) return undefined;
  const { createRequire } = node.getBuiltinModule('node:module') as {
    createRequire(from: string): (id: string) => unknown;
  };
  return createRequire(import.meta.url);
}
