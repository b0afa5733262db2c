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

/**
 * A package's ES module in Node, required by its resolved file: the copy `import` gives, for a package
 * whose `require` condition is missing (json-schema-faker) or would load a second copy (zod). Where
 * `import.meta.resolve` is missing (a bundler's module runner), the package's own `require` entry.
 *
 * @example const zod = requireEsModule(nodeRequire()!, 'zod');
 */
export function requireEsModule(require: (id: string) => unknown, specifier: string): unknown {
  const node = (globalThis as { process: { getBuiltinModule(name: string): unknown } }).process;
  const { fileURLToPath } = node.getBuiltinModule('node:url') as { fileURLToPath(url: string): string };
  let file = specifier;
  try {
    file = fileURLToPath(import.meta.resolve(specifier));
  } catch {}
  return require(file);
}
