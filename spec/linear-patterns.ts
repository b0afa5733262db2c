import { createContext, Script } from 'node:vm';
import type { RE2JS as RE2JSClass } from 're2js';
import { lazyModule } from './lazy-module.js';
import { leadingLookaheads } from './lookahead-conjunction.js';
import { PatternBudgetSpent, type PatternEngine, usePatternEngine } from './pattern-engine.js';

/**
 * Most milliseconds one match of a pattern RE2 cannot run may take with `--unsafe-patterns`. V8 has
 * no step counter for its RegExp; its interrupt (node:vm's timeout) stops a match between steps.
 */
const unsafePatternBudgetMs = 50;

/**
 * Schema patterns compiled by RE2 (re2js, pure JavaScript): matching takes time linear in the value,
 * whatever the pattern. Lookaheads at the start (`^(?!api/).*`) are run as the conjunction of RE2
 * matches they mean; any other pattern RE2 cannot express (lookaround, backreferences) is refused when the
 * document is loaded (`refuses`); with `--unsafe-patterns` (`allowUnsafePatterns`) it is run by the
 * platform's engine under a budget per match, never without one. Imported by spec/load-spec.ts, so
 * every Node reader of a document uses it.
 */
export const linearPatternEngine: PatternEngine = createLinearEngine(false);

/**
 * Serve patterns RE2 cannot run, each match under `unsafePatternBudgetMs` (a value that spends it
 * fails the pattern: a 400). For every validator compiled after the call, as the engine is.
 *
 * @example allowUnsafePatterns(); // petstore-mock --unsafe-patterns
 */
export function allowUnsafePatterns(): void {
  usePatternEngine(createLinearEngine(true));
}

function createLinearEngine(unsafePatterns: boolean): PatternEngine {
  const compile = (pattern: string, flags: string) => {
    const compiled = compileLinear(pattern, flags);
    if (typeof compiled !== 'string')
      // ajv keeps one compiled pattern per `toString()`: it must name the pattern.
      return { test: (text: string) => compiled.test(text), toString: () => `re2:/${pattern}/${flags}` };
    return budgetedPattern(pattern, flags);
  };
  // A document repeats its patterns (each copy of a schema from another file holds them): each is judged
  // once, and a process that reads document after document keeps a bounded number of verdicts.
  const refusals = new Map<string, string | undefined>();
  const refuses = (pattern: string) => {
    if (refusals.size >= 10_000) refusals.clear();
    if (!refusals.has(pattern)) refusals.set(pattern, refusalOf(compileLinear(pattern, 'u')));
    return refusals.get(pattern);
  };
  // ajv's standalone code names the engine it was given; this one is never written out.
  return Object.assign(compile, { code: 'new RegExp', ...(unsafePatterns ? {} : { refuses }) });
}

function refusalOf(compiled: LinearMatch | string): string | undefined {
  return typeof compiled === 'string' ? compiled : undefined;
}

interface LinearMatch {
  test(text: string): boolean;
}

/**
 * RE2's compiled pattern, or for leading lookaheads (`^(?!api/).*`) the conjunction of RE2 patterns they
 * mean (spec/lookahead-conjunction.ts), or why RE2 cannot run it.
 */
function compileLinear(pattern: string, flags: string): LinearMatch | string {
  const whole = compileRe2(pattern, flags);
  if (typeof whole !== 'string') return whole;
  const conjunction = leadingLookaheads(pattern, flags);
  if (conjunction === undefined) return whole;
  const must = conjunction.must.map((part) => compileRe2(part, flags));
  const mustNot = conjunction.mustNot.map((part) => compileRe2(part, flags));
  const rest = compileRe2(conjunction.rest, flags);
  const refused = [...must, ...mustNot, rest].find((part) => typeof part === 'string');
  if (refused !== undefined) return whole;
  return {
    test: (text: string) =>
      (must as LinearMatch[]).every((part) => part.test(text)) &&
      !(mustNot as LinearMatch[]).some((part) => part.test(text)) &&
      (rest as LinearMatch).test(text),
  };
}

function compileRe2(pattern: string, flags: string): RE2JSClass | string {
  const RE2JS = re2();
  try {
    return RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    return `RE2 cannot run it: ${(error as Error).message.slice(0, 120)}`;
  }
}

/** The platform's engine, each match stopped after the budget: one shared context, one compiled call. */
function budgetedPattern(pattern: string, flags: string): { test(text: string): boolean; toString(): string } {
  const context = createContext({ pattern: new RegExp(pattern, flags), text: '' });
  const match = new Script('pattern.test(text)');
  // Once without a budget on the empty text: the first run compiles the call, which must not be charged to a value.
  match.runInContext(context);
  return {
    test(text: string) {
      context.text = text;
      try {
        // vm's timeout is wall-clock time: on a loaded machine a match of microseconds can be stopped
        // while it waits for a core. A stop after less CPU than half the budget is such a wait, so the
        // match runs again, twice at most (a value costs three budgets at worst).
        for (let attempt = 1; ; attempt += 1) {
          const started = process.cpuUsage();
          try {
            return match.runInContext(context, { timeout: unsafePatternBudgetMs }) as boolean;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
            const spent = process.cpuUsage(started);
            const waited = (spent.user + spent.system) / 1000 < unsafePatternBudgetMs / 2;
            if (!waited || attempt === 3) throw new PatternBudgetSpent(pattern, unsafePatternBudgetMs);
          }
        }
      } finally {
        context.text = '';
      }
    },
    toString: () => `budgeted:/${pattern}/${flags}`,
  };
}

/** re2js, required at the first pattern compiled (this module is Node's only: load-spec.ts reads files). */
const lazy = lazyModule<typeof RE2JSClass>({
  what: 're2js',
  notLoaded: 'the linear pattern engine runs in Node only',
  require: (require) => (require('re2js') as { RE2JS: typeof RE2JSClass }).RE2JS,
});

function re2(): typeof RE2JSClass {
  return lazy.now();
}

usePatternEngine(linearPatternEngine);
