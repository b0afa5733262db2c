import type { RE2JS as RE2JSClass } from 're2js';
import { nodeRequire } from './node-require.js';
import { type PatternEngine, usePatternEngine } from './schema-validator.js';

/**
 * Schema patterns compiled by RE2 (re2js, pure JavaScript): matching takes time linear in the value,
 * whatever the pattern. A pattern RE2 cannot express (lookaround, backreferences) keeps the platform's
 * RegExp, as before. Imported by spec/load-spec.ts, so every Node reader of a document uses it.
 */
export const linearPatternEngine: PatternEngine = Object.assign(
  (pattern: string, flags: string) => {
    const RE2JS = re2();
    try {
      const compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
      // ajv keeps one compiled pattern per `toString()`: it must name the pattern.
      return { test: (text: string) => compiled.test(text), toString: () => `re2:/${pattern}/${flags}` };
    } catch {
      return new RegExp(pattern, flags);
    }
  },
  // ajv's standalone code names the engine it was given; this one is never written out.
  { code: 'new RegExp' },
);

let loaded: typeof RE2JSClass | undefined;

/** re2js, required at the first pattern compiled (this module is Node's only: load-spec.ts reads files). */
function re2(): typeof RE2JSClass {
  if (loaded !== undefined) return loaded;
  const require = nodeRequire();
  if (require === undefined) throw new Error('the linear pattern engine runs in Node only');
  loaded = (require('re2js') as { RE2JS: typeof RE2JSClass }).RE2JS;
  return loaded;
}

usePatternEngine(linearPatternEngine);
