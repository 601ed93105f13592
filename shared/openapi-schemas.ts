import * as z from 'zod';

export type JsonSchema = Record<string, unknown>;

export const COMPONENT = '#/components/schemas/';
/** Where an input form's refs point until finish() knows every form. */
const INPUT_REF = `${COMPONENT}~input~`;

/**
 * The JSON Schemas of the OpenAPI description, from the zod schemas (zod's JSON Schema 2020-12 output, OpenAPI
 * 3.1's dialect), in two forms: what the service answers (output: every field with a default is present, so
 * required) and what a client sends (input: a field with a default may be left out).
 *
 * Named schemas (`.meta({ id })`) become components in their output form. A request refers to a component only
 * where its input form is that same schema; any other input form (a body with defaults, say) is written out where
 * it is used, so that tools which read a component's `default` as "always present" (openapi-typescript's
 * defaults) never make a request field required that the service fills in. Only an input form that contains
 * itself is named, `<id>Input`.
 */
export class SchemaForms {
  private readonly forms: Record<'input' | 'output', Record<string, JsonSchema>> = { input: {}, output: {} };
  private readonly refable = new Map<string, boolean>();
  private readonly named = new Set<string>();

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
    const target = io === 'input' ? INPUT_REF : COMPONENT;
    const rewritten = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${target}`)) as JsonSchema;
    const { $schema: _schema, $defs, ...rest } = rewritten;
    for (const [id, def] of Object.entries(($defs as Record<string, JsonSchema> | undefined) ?? {}))
      this.forms[io][id] ??= def;
    return rest;
  }

  /** `part` (the paths) with every input ref resolved, and the components it and the answers refer to. */
  finish<T>(part: T): { part: T; components: Record<string, JsonSchema> } {
    const resolved = this.resolve(part, []) as T;
    const components: Record<string, JsonSchema> = { ...this.forms.output };
    for (const [id, def] of Object.entries(this.forms.input))
      if (this.isRefable(id)) components[id] ??= this.resolve(def, [id]) as JsonSchema;
    for (let done = 0; done < this.named.size;) {
      const pending = [...this.named].slice(done);
      done = this.named.size;
      for (const id of pending)
        components[`${id}Input`] = this.resolve(this.forms.input[id], [id]) as JsonSchema;
    }
    return {
      part: resolved,
      components: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    };
  }

  private resolve(node: unknown, stack: string[]): unknown {
    if (Array.isArray(node)) return node.map((item) => this.resolve(item, stack));
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as JsonSchema;
    const siblings = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, this.resolve(v, stack)]));
    if (typeof $ref !== 'string' || !$ref.startsWith(INPUT_REF))
      return $ref === undefined ? siblings : { $ref, ...siblings };
    const id = $ref.slice(INPUT_REF.length);
    if (this.isRefable(id)) return { $ref: `${COMPONENT}${id}`, ...siblings };
    if (stack.includes(id)) {
      this.named.add(id);
      return { $ref: `${COMPONENT}${id}Input`, ...siblings };
    }
    return { ...(this.resolve(this.forms.input[id], [...stack, id]) as JsonSchema), ...siblings };
  }

  /** A request may refer to the component: its input form is the output form, or it has no output form and no default. */
  private isRefable(id: string): boolean {
    const known = this.refable.get(id);
    if (known !== undefined) return known;
    this.refable.set(id, true); // a cycle back to this schema does not tell it apart
    const input = this.forms.input[id]!;
    const output = this.forms.output[id];
    const text = JSON.stringify(input);
    const own = output
      ? text.replaceAll(INPUT_REF, COMPONENT) === JSON.stringify(output)
      : !hasDefault(input);
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map(([, ref]) => ref!);
    const refable =
      own && refs.every((ref) => !ref.startsWith(INPUT_REF) || this.isRefable(ref.slice(INPUT_REF.length)));
    this.refable.set(id, refable);
    return refable;
  }
}

/** A `default` keyword anywhere in the schema (a property named "default" is not one). */
function hasDefault(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasDefault);
  if (!node || typeof node !== 'object') return false;
  return Object.entries(node).some(([key, value]) =>
    key === 'default'
      ? true
      : key === 'properties'
        ? Object.values(value as object).some(hasDefault)
        : hasDefault(value),
  );
}
