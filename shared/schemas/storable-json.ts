import * as z from 'zod';

/**
 * The one rule for what a request may carry into DynamoDB and the ledger's RFC 8785 hashing (docs/architecture.md
 * §4 "Storable input"). The request boundary (shared/http/validation.ts) applies it to every parsed body, query and
 * path; the schemas below apply it to each free-form field and free string, so nothing reaches a write unchecked.
 *
 * - strings (values and object keys) are well-formed UTF-16: a lone surrogate has no UTF-8 form;
 * - object keys are not empty (DynamoDB refuses empty map keys);
 * - numbers are finite; integers are safe (±(2^53−1), the DocumentClient refuses others and the canonical form
 *   would differ from the input's digits); a non-integer has a magnitude of at least 1E-130, DynamoDB's smallest
 *   (every non-integer double is below 2^53, far under DynamoDB's largest, 9.99…E+125);
 * - nesting is bounded and checked iteratively, before any recursive code (zod's, JSON.stringify's) sees it.
 */

/** Containers (objects, arrays) a free-form field may nest, itself included: DynamoDB allows 32 per item,
 * and the item's own structure (record, outbox entry, job) needs a few of the rest. */
export const MAX_FIELD_DEPTH = 16;
/** Containers a whole request body may nest: a free field plus the request's own structure around it. */
export const MAX_REQUEST_DEPTH = MAX_FIELD_DEPTH + 4;
/** Largest estimated DynamoDB size of one free-form field (so an item with three stays under 400 KB). */
export const MAX_FIELD_BYTES = 100_000;
/** Smallest magnitude of a non-zero DynamoDB number. */
export const MIN_NUMBER_MAGNITUDE = 1e-130;
/** At most this many problems are reported per request part. */
const MAX_PROBLEMS = 20;

export const WELL_FORMED_MESSAGE = 'must be well-formed UTF-16 text (no lone surrogate)';

export interface StorableProblem {
  path: (string | number)[];
  message: string;
}

export interface StorableLimits {
  maxDepth: number;
  /** Estimated DynamoDB size limit of the whole value (none when absent). */
  maxBytes?: number;
}

export function isWellFormed(text: string): boolean {
  // String.prototype.isWellFormed: Node 20+ (ES2024), newer than the ES2023 lib the project compiles against.
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Why a number cannot be stored and hashed as given, or undefined when it can. */
export function numberProblem(value: number): string | undefined {
  if (!Number.isFinite(value)) return 'must be a finite number';
  if (Number.isInteger(value)) {
    return Number.isSafeInteger(value)
      ? undefined
      : 'integers must be within ±9007199254740991 (2^53−1); larger ones lose digits';
  }
  return Math.abs(value) < MIN_NUMBER_MAGNITUDE
    ? 'non-integer numbers must have a magnitude of at least 1e-130 (DynamoDB cannot store smaller ones)'
    : undefined;
}

/** DynamoDB's size of a number: about one byte per two significant digits, plus one. */
function numberBytes(value: number): number {
  const digits = String(Math.abs(value))
    .replace(/e.*$/, '')
    .replace('.', '')
    .replace(/^0+|0+$/g, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

interface Node {
  value: unknown;
  parent: Node | undefined;
  key: string | number | undefined;
  depth: number;
}

const pathOf = (node: Node | undefined): (string | number)[] => {
  const path: (string | number)[] = [];
  for (let at = node; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
};

/**
 * Every reason `value` (parsed JSON) cannot be stored, with the path of each (at most 20). Iterative: a body of
 * any depth is walked without recursion, and nothing below `maxDepth` is visited.
 */
export function findUnstorable(value: unknown, limits: StorableLimits): StorableProblem[] {
  const problems: StorableProblem[] = [];
  const stack: Node[] = [{ value, parent: undefined, key: undefined, depth: 0 }];
  let bytes = 0;
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const node = stack.pop() as Node;
    const current = node.value;
    const report = (message: string, at: Node = node) => problems.push({ path: pathOf(at), message });
    if (typeof current === 'string') {
      bytes += Buffer.byteLength(current);
      if (!isWellFormed(current)) report(WELL_FORMED_MESSAGE);
    } else if (typeof current === 'number') {
      bytes += numberBytes(current);
      const problem = numberProblem(current);
      if (problem) report(problem);
    } else if (typeof current === 'object' && current !== null) {
      const depth = node.depth + 1;
      if (depth > limits.maxDepth) {
        report(`must not nest deeper than ${limits.maxDepth} levels of objects and arrays`);
        continue;
      }
      const entries: [string | number, unknown][] = Array.isArray(current)
        ? current.map((item, index) => [index, item])
        : Object.entries(current);
      bytes += 3 + entries.length;
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index] as [string | number, unknown];
        if (typeof key === 'string') {
          bytes += Buffer.byteLength(key);
          if (key.length === 0) report('object keys must not be empty');
          else if (!isWellFormed(key)) report(`object keys ${WELL_FORMED_MESSAGE}`);
        }
        stack.push({ value: item, parent: node, key, depth });
      }
    } else {
      bytes += 1;
    }
  }
  if (limits.maxBytes !== undefined && bytes > limits.maxBytes && problems.length === 0)
    problems.push({
      path: [],
      message: `must not exceed ${limits.maxBytes} bytes once stored (DynamoDB's item size)`,
    });
  return problems;
}

/** Adds each problem of a free-form field as a zod issue at its own path. */
function checkStorable(value: unknown, context: z.RefinementCtx): void {
  for (const problem of findUnstorable(value, { maxDepth: MAX_FIELD_DEPTH, maxBytes: MAX_FIELD_BYTES }))
    context.addIssue({ code: 'custom', path: problem.path, message: problem.message });
}

/** A free string: any text, as long as it is well-formed (chain .trim(), .min(), .max() as needed). */
export const WellFormedString = z.string().refine(isWellFormed, { message: WELL_FORMED_MESSAGE });

/** A number DynamoDB and the canonical JSON form hold exactly (chain .min(), .max() as needed). */
export const StorableNumber = z.number().superRefine((value, context) => {
  const problem = numberProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

export const STORABLE_JSON_DESCRIPTION = `Any JSON object whose keys are non-empty, strings well-formed, numbers finite (integers within ±(2^53−1), other numbers at least 1e-130 in magnitude), at most ${MAX_FIELD_DEPTH} levels deep and ${MAX_FIELD_BYTES} bytes stored.`;

/** A free-form JSON object (metadata, factFindSummary, …): any members, as long as all of it is storable. */
export const StorableJsonObject = z
  .record(z.string(), z.unknown())
  .superRefine(checkStorable)
  .meta({ description: STORABLE_JSON_DESCRIPTION });

/** Applies the storable rule to an object schema whose members are partly free (aiContext). */
export function storableObject<T extends z.ZodType<Record<string, unknown>>>(schema: T): T {
  return schema.superRefine(checkStorable) as T;
}
