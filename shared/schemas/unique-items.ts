import * as z from 'zod';

/**
 * An array whose items must not repeat: each repeat is reported at its own index (`body.qualifications.2`),
 * and the OpenAPI schema says `uniqueItems: true`.
 */
export function uniqueArray<T extends z.ZodType>(item: T, what: string) {
  return z
    .array(item)
    .superRefine((items, context) => {
      const seen = new Set<unknown>();
      items.forEach((value, index) => {
        if (seen.has(value))
          context.addIssue({ code: 'custom', path: [index], message: `Duplicate ${what}` });
        seen.add(value);
      });
    })
    .meta({ uniqueItems: true });
}
