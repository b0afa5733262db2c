import { RE2JS } from 're2js';
import { type PatternEngine, usePatternEngine } from './schema-validator.js';

/**
 * Schema patterns compiled by RE2 (re2js, pure JavaScript): matching takes time linear in the value,
 * whatever the pattern. A pattern RE2 cannot express (lookaround, backreferences) keeps the platform's
 * RegExp, as before. Imported by spec/load-spec.ts, so every Node reader of a document uses it.
 */
export const linearPatternEngine: PatternEngine = Object.assign(
  (pattern: string, flags: string) => {
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

usePatternEngine(linearPatternEngine);
