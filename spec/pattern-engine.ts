/**
 * The engine that runs a document's `pattern`s, for every validator compiled after it is installed
 * (ajv's `code.regExp`). Plain data and no imports: the audit (schema-keywords.ts) asks it which
 * patterns it refuses, the validators (schema-validator.ts) compile with it, and a page installs
 * none (the platform's RegExp, where only the page's own user sends values).
 */
export type PatternEngine = ((pattern: string, flags: string) => { test(text: string): boolean }) & {
  code: string;
  /** Why this engine will not run `pattern` (the document is refused when it is loaded), or undefined. */
  refuses?: (pattern: string) => string | undefined;
};

let installed: PatternEngine | undefined;

/**
 * The engine of every validator compiled after this call. The platform's RegExp backtracks: a pattern
 * such as `^(\w+\s?)*$` takes seconds on a 30-character value, and one request would stop every other.
 * Node readers of documents install a linear-time engine (spec/linear-patterns.ts, through load-spec.ts).
 *
 * @example usePatternEngine(linearPatternEngine);
 */
export function usePatternEngine(engine: PatternEngine | undefined): void {
  installed = engine;
}

/** The engine installed, if any. */
export function installedPatternEngine(): PatternEngine | undefined {
  return installed;
}

/**
 * The first of `patterns` the installed engine will not run, as the reason to refuse the document:
 * in Node a pattern RE2 cannot run would otherwise be matched by a backtracking engine on the
 * request path (spec/linear-patterns.ts). None in a page, where no engine is installed.
 */
export function slowPatternRefusal(patterns: string[]): string | undefined {
  const engine = installed;
  for (const pattern of patterns) {
    const reason = engine?.refuses?.(pattern);
    if (reason !== undefined)
      return `pattern ${JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}...` : pattern)} cannot be matched in time linear in the value (${reason}); rewrite it without lookbehind, backreferences or lookaheads other than at the start after ^, or start with --unsafe-patterns to run it under a time budget per match`;
  }
  return undefined;
}

/**
 * Thrown by a match that spent its budget (`--unsafe-patterns`): ajv lets it through, and the
 * validator answers it as a failed `pattern`, so the request is a 400 and the process goes on.
 */
export class PatternBudgetSpent extends Error {
  constructor(
    readonly pattern: string,
    readonly budgetMs: number,
  ) {
    super(
      `the pattern ${pattern.length > 60 ? `${pattern.slice(0, 60)}...` : pattern} spent its budget of ${budgetMs} ms on one value`,
    );
    this.name = 'PatternBudgetSpent';
  }
}
