import * as z from 'zod';

/**
 * Hand-written zod schemas of the interface's resources, the source of the TypeScript types.
 * `schema-drift.test.ts` proves they say the same as `petstore.openapi.yaml`'s components:
 * edit one side only and that test fails.
 */
export const NewCategorySchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
});

export const CategorySchema = z.looseObject({
  id: z.int(),
  name: z.string(),
  description: z.string().optional(),
});

export const ErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  status: z.int(),
});

export type NewCategory = z.infer<typeof NewCategorySchema>;
export type Category = z.infer<typeof CategorySchema>;
export type ErrorBody = z.infer<typeof ErrorSchema>;

/** Schema name in `components.schemas` -> hand-written zod schema. */
export const componentSchemas = {
  NewCategory: NewCategorySchema,
  Category: CategorySchema,
  Error: ErrorSchema,
} as const;
