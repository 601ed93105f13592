import type { z } from 'zod';
import { ValidationError, type ErrorDetail } from '../errors.js';
import { findUnstorable, MAX_REQUEST_DEPTH } from '../schemas/storable-json.js';

/**
 * Parses one part of a request with its schema; failures become a 400 listing every offending field. Every
 * string, number, key and nesting level of the part is first held to the storable rule (shared/schemas/
 * storable-json.ts), iteratively, so no schema (and no recursive code) ever sees a value that cannot be stored.
 */
export function parsePart<T extends z.ZodType>(
  schema: T | undefined,
  value: unknown,
  part: 'params' | 'query' | 'body',
): z.output<T> | undefined {
  if (!schema) return undefined;
  const detail = (path: PropertyKey[], message: string): ErrorDetail => ({
    path: [part, ...path.map(String)].join('.'),
    message,
  });
  const unstorable = findUnstorable(value, { maxDepth: MAX_REQUEST_DEPTH });
  if (unstorable.length > 0)
    throw new ValidationError(
      `Invalid request ${part}`,
      unstorable.map((problem) => detail(problem.path, problem.message)),
    );
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(
    `Invalid request ${part}`,
    result.error.issues.map((issue) => detail(issue.path, issue.message)),
  );
}
