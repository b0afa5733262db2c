import type * as z from 'zod';
import { describeIssuePath, quoteShort } from '../../../spec/issue-wording.js';
import { onFirstUse } from '../../../spec/zod-module.js';

// What the config file and the scenario file share: the rules of a plan name and a date, and one
// way to word what is wrong (a few problems, each with a short escaped excerpt).

// Plan names index a record: keep them to plain words, so "__proto__" or "constructor" can never be one.
export const planName = /^(?!__proto__$|constructor$|prototype$)[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** ISO 8601 date or date-time (`2027-12-31`, `2027-12-31T23:59:59Z`): what Date.parse reads the same everywhere. */
export const isoDatePattern = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
export const isoDate = onFirstUse((z) =>
  z.string().refine((text) => isoDatePattern.test(text) && !Number.isNaN(Date.parse(text)), {
    message: 'must be an ISO 8601 date, e.g. 2027-12-31T23:59:59Z',
  }),
);

/** A client's two budgets: requests per minute and per day. */
export const limitsSchema = onFirstUse((z) =>
  z.strictObject({ perMinute: z.int().positive(), perDay: z.int().positive() }),
);
export type Limits = z.infer<ReturnType<typeof limitsSchema>>;

/** A key as the config and a scenario name it: its secret (printable ASCII), its plan or its own limits. */
export const keyFields = onFirstUse((z) => ({
  key: z
    .string()
    .min(1)
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
  plan: z.string().regex(planName, 'must be a plan name (letters, digits, - and _)').optional(),
  limits: limitsSchema().optional(),
}));

/** One line naming up to five problems of a decoded file, each where it is (`keys.0.plan: ...`). */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  // A config file may be huge or not a config at all: a few problems, each with a few keys, never
  // more than a short escaped excerpt of what the file holds.
  const shown = issues.slice(0, 5).map((issue) => {
    const where = issue.path.length > 0 ? describeIssuePath(issue.path) : '(root)';
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.slice(0, 3).map((key) => quoteShort(key));
      const more = issue.keys.length > 3 ? ` and ${issue.keys.length - 3} more` : '';
      return `${where}: Unrecognized key${issue.keys.length === 1 ? '' : 's'}: ${keys.join(', ')}${more}`;
    }
    const text =
      issue.code === 'too_small' && issue.origin === 'number' && Number(issue.minimum) <= 1
        ? 'must be a positive integer'
        : issue.message.slice(0, 200);
    return `${where}: ${text}`;
  });
  if (issues.length > 5) shown.push(`and ${issues.length - 5} more problems`);
  return shown.join('; ');
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether text has a UTF-8 form, i.e. no lone surrogate (`String.prototype.isWellFormed`, which older
 * browsers lack). Text that names a store key must: Redis could not name it, so neither store takes it.
 */
export function isWellFormed(text: string): boolean {
  return !loneSurrogate.test(text);
}
