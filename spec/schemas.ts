import type * as z from 'zod';
import { onFirstUse } from './zod-module.js';

/**
 * Hand-written zod schemas of the interface's resources, the source of the TypeScript types.
 * `schema-drift.test.ts` proves they say the same as `petstore.openapi.yaml`'s components:
 * edit one side only and that test fails. Made when first used (spec/zod-module.ts).
 */
export const componentSchemas = onFirstUse((z) => ({
  NewCategory: z.looseObject({
    name: z.string(),
    description: z.string().optional(),
  }),
  Category: z.looseObject({
    id: z.int(),
    name: z.string(),
    description: z.string().optional(),
  }),
  Error: z.looseObject({
    code: z.string(),
    message: z.string(),
    status: z.int(),
  }),
}));

type ComponentSchemas = ReturnType<typeof componentSchemas>;
export type NewCategory = z.infer<ComponentSchemas['NewCategory']>;
export type Category = z.infer<ComponentSchemas['Category']>;
export type ErrorBody = z.infer<ComponentSchemas['Error']>;
