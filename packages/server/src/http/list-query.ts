import { z } from 'zod';

/** A query value a form left empty counts as absent. */
export const optional = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** `limit` of a list page: a whole number from 1 to 200, `fallback` when absent. */
export const limitOf = (fallback: number) =>
  z.preprocess(
    (value) => (value === '' || value === undefined ? fallback : Number(value)),
    z
      .number({ error: 'limit must be a whole number from 1 to 200' })
      .int({ error: 'limit must be a whole number from 1 to 200' })
      .min(1, { error: 'limit must be a whole number from 1 to 200' })
      .max(200, { error: 'limit must be a whole number from 1 to 200' }),
  );

/** `cursor` of a list page: `next_cursor` of the previous page, passed back unchanged. */
export const cursorField = optional(z.string().max(512, { error: 'cursor must be at most 512 characters' }));
