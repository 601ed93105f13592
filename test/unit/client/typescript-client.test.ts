import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { CLIENT_TYPES, clientTypes } from '../../../scripts/client-generate.js';
import { buildOpenApi } from '../../../shared/openapi.js';

/*
 * Issue 19, part 2: the typed client compiles. clients/typescript/schema.d.ts is what openapi-typescript (default
 * options) makes of our description, and a call of every operation with only its required parameters and the
 * required fields of its body compiles under `tsc --strict` (a field with a default is optional in a request).
 */

const ROOT = resolve(import.meta.dirname, '../../..');

type Schema = Record<string, any>;
const document = buildOpenApi() as Schema;

/** The smallest value of a schema's type: required properties only, each with the first value its type allows. */
function minimal(schema: Schema, depth = 0): unknown {
  if (depth > 20) throw new Error('schema too deep for a minimal value');
  if (schema.$ref) return minimal(document.components.schemas[schema.$ref.split('/').pop()], depth + 1);
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  const branch = schema.anyOf ?? schema.oneOf;
  if (branch) return minimal(branch[0], depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: Schema) => minimal(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return 'x';
    case 'number':
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((name: string) => [name, minimal(schema.properties[name], depth + 1)]),
      );
    default:
      return null; // any value
  }
}

/** One call per operation, with only what is required. */
function callsOfEveryOperation(): string {
  const lines: string[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths)) {
    for (const [method, operation] of Object.entries<Schema>(item)) {
      const params: Record<string, Record<string, unknown>> = {};
      for (const parameter of operation.parameters ?? []) {
        if (parameter.required) (params[parameter.in] ??= {})[parameter.name] = minimal(parameter.schema);
      }
      const body = operation.requestBody?.content['application/json']?.schema;
      const init = {
        ...(Object.keys(params).length ? { params } : {}),
        ...(body ? { body: minimal(body) } : {}),
      };
      lines.push(`  await client.${method.toUpperCase()}(${JSON.stringify(path)}, ${JSON.stringify(init)});`);
    }
  }
  return lines.join('\n');
}

/** Type errors of a file compiled with the repository's module settings under --strict, generated types included. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    skipLibCheck: false,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the TypeScript client (clients/typescript)', () => {
  it('ships the types openapi-typescript makes of the current description (npm run client:generate)', async () => {
    const committed = readFileSync(CLIENT_TYPES, 'utf8');
    expect(committed === (await clientTypes()) ? 'up to date' : 'stale: run npm run client:generate').toBe(
      'up to date',
    );
  });

  it('compiles a call of every operation with only its required fields under tsc --strict', () => {
    const dir = join(ROOT, `.tmp/client-calls-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const file = join(dir, 'calls.ts');
      writeFileSync(
        file,
        [
          "import { createLedgerClient } from '../../clients/typescript/index.js';",
          "const client = createLedgerClient({ baseUrl: 'http://localhost:3000', apiKey: 'gls_test' });",
          'export async function everyOperation(): Promise<void> {',
          callsOfEveryOperation(),
          '}',
        ].join('\n'),
      );
      expect(readFileSync(file, 'utf8').match(/await client\./g)?.length).toBeGreaterThan(79);
      expect(typeErrors(file)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
