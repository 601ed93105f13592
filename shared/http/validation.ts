import type { z } from 'zod';
import { ValidationError, type ErrorDetail } from '../errors.js';

/** Parses one part of a request with its schema; failures become a 400 listing every offending field. */
export function parsePart<T extends z.ZodType>(
  schema: T | undefined,
  value: unknown,
  part: 'params' | 'query' | 'body',
): z.output<T> | undefined {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  throw new ValidationError(`Invalid request ${part}`, details);
}
