import type * as z from 'zod';
import { onFirstUse } from '../../../spec/zod-module.js';
import { isoDate } from './decoding.js';

/**
 * The exact parts of a scenario (a snapshot's, docs/decisions/026-faithful-export.md): where a client
 * stands, and the category list with its ids. Written by the export's state line and the browser's
 * `persist`; a person may write them too (docs/scenarios.md). Browser-safe.
 */

/**
 * Where a client stands exactly: when each window started and what it counted, the requests refused
 * in a row, the ban's end. Unlike `spent`, nothing is relative to the scenario's clock.
 */
export const clientWindowsSchema = onFirstUse((z) => {
  const exactCount = z.int().min(0).max(1_000_000_000);
  return z.strictObject({
    minuteStart: isoDate(),
    minute: exactCount,
    dayStart: isoDate(),
    day: exactCount,
    strikes: exactCount.optional(),
    bannedUntil: isoDate().nullable().optional(),
  });
});

/** Categories to create; with ids (consecutive, ascending, all or none), the session's list replaced by exactly these. */
export const scenarioCategoriesSchema = onFirstUse((z) =>
  z
    .array(
      z.strictObject({
        id: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
        name: z.string().min(1).max(200),
        description: z.string().max(2_000).optional(),
      }),
    )
    .max(10_000)
    .refine(
      (list) =>
        list.every((category) => category.id === undefined) ||
        list.every((category, index) => category.id === list[0]!.id! + index),
      'ids must be given for all categories or none, consecutive and ascending',
    ),
);

/** A client's exact windows, virtual times in milliseconds (a scenario's `windows`; the store's `ClientWindows`). */
export interface ExactWindows {
  minuteStartMs: number;
  minuteCount: number;
  dayStartMs: number;
  dayCount: number;
  /** Requests refused in a row since the client was last served: the ban policy counts them. */
  strikes: number;
  /** When its ban ends; null when it is not banned. */
  bannedUntilMs: number | null;
}

export function exactWindows(windows: z.output<ReturnType<typeof clientWindowsSchema>>): ExactWindows {
  return {
    minuteStartMs: Date.parse(windows.minuteStart),
    minuteCount: windows.minute,
    dayStartMs: Date.parse(windows.dayStart),
    dayCount: windows.day,
    strikes: windows.strikes ?? 0,
    bannedUntilMs:
      windows.bannedUntil === undefined || windows.bannedUntil === null ? null : Date.parse(windows.bannedUntil),
  };
}

interface ListedCategory {
  id: number;
  name: string;
  description?: string;
}

/** What a scenario's categories do: replace the session's list (with ids), or create each after its own. */
export type CategoryOperation =
  | { op: 'restoreCategories'; categories: ListedCategory[] }
  | { op: 'createCategory'; name: string; description?: string };

export function categoryOperations(
  categories: z.output<ReturnType<typeof scenarioCategoriesSchema>>,
): CategoryOperation[] {
  const described = (category: { description?: string | undefined }) =>
    category.description !== undefined ? { description: category.description } : {};
  if (categories.length > 0 && categories[0]!.id !== undefined)
    return [
      {
        op: 'restoreCategories',
        categories: categories.map((category) => ({ id: category.id!, name: category.name, ...described(category) })),
      },
    ];
  return categories.map((category) => ({ op: 'createCategory', name: category.name, ...described(category) }));
}
