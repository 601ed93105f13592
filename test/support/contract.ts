/**
 * The description is enforced (issue 19, part 1): every answer a test receives through `call` is checked against
 * the `/openapi.json` the stack serves, as an integrator's validating proxy would. The status must be documented
 * for the operation, the content type documented for that status, and the body valid against its schema (Ajv,
 * JSON Schema 2020-12 as the generator emits it, strict, with ajv-formats). A mismatch throws, so the test that
 * made the call fails with the operation, the status and Ajv's errors.
 *
 * Answers that no operation makes are held to the rules the description states for them (its `info.description`):
 * an unknown path 404 `NOT_FOUND`, a known path with another method 405 `METHOD_NOT_ALLOWED` whose `Allow` lists
 * the path's documented methods, a request line or headers over the gateway's limit 414 `URI_TOO_LONG` / 431
 * `HEADERS_TOO_LARGE`, each in the error envelope (`#/components/schemas/Error`). Only paths that are not the API
 * at all are left out, in NOT_THE_API.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** Local-only helpers the embedded stack serves beside the API: not in the description, by design. */
export const NOT_THE_API: readonly { prefix: string; reason: string }[] = [
  {
    prefix: '/__local/',
    reason: "the embedded stack's diagnostics (Sign counters); nothing of it exists in AWS",
  },
  {
    prefix: '/local-objects/',
    reason: 'the local object store behind presigned URLs: in AWS those URLs are S3, not this API',
  },
  {
    prefix: '/dev-issuer/',
    reason: "the local OIDC issuer's JWKS: in AWS the issuer is Cognito or the firm's identity provider",
  },
];

/** Refusals the gateway makes before any operation is matched (see the description's `info.description`). */
const GATEWAY_REFUSALS: Readonly<Record<number, string>> = { 414: 'URI_TOO_LONG', 431: 'HEADERS_TOO_LARGE' };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const COMPONENTS_ID = 'openapi-components';

export interface Answer {
  method: string;
  /** The request path, with its query string if any. */
  path: string;
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON when it is JSON, else the text. */
  body: unknown;
  /** The body's bytes, for answers that are not text (application/octet-stream). */
  bytes?: Uint8Array;
}

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; 'x-greedy'?: boolean }[];
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

interface PathTemplate {
  template: string;
  pattern: RegExp;
  literals: number;
  item: Record<string, Operation>;
}

// ajv-formats is CommonJS: under ESM its function is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

export class Description {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly paths: PathTemplate[];

  constructor(document: {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: object };
  }) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components.schemas) });
    this.paths = Object.entries(document.paths).map(([template, item]) => {
      const segments = template.split('/');
      // A parameter marked x-greedy (API Gateway's `{name+}`) takes the rest of the path, slashes included.
      const greedy = new Set(
        Object.values(item).flatMap((operation) =>
          (operation.parameters ?? []).filter((p) => p.in === 'path' && p['x-greedy']).map((p) => p.name),
        ),
      );
      const source = segments
        .map((s) => {
          const param = /^\{([^}]+)\}$/.exec(s);
          if (!param) return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          return greedy.has(param[1]!) ? '[^/]+(?:/[^/]+)*' : '[^/]+';
        })
        .join('/');
      return {
        template,
        pattern: new RegExp(`^${source}$`),
        literals: segments.filter((s) => !s.startsWith('{')).length,
        item,
      };
    });
  }

  /** The problems with an answer, empty when the description allows it. */
  check(answer: Answer): string[] {
    const pathname = new URL(answer.path, 'http://x').pathname;
    if (NOT_THE_API.some(({ prefix }) => pathname.startsWith(prefix))) return [];
    const method = answer.method.toLowerCase();
    const gatewayCode = GATEWAY_REFUSALS[answer.status];
    if (gatewayCode) return this.envelope(answer, 'gateway refusal', gatewayCode);

    // API Gateway's precedence: the path with the most literal segments wins.
    const match = this.paths
      .filter((p) => p.pattern.test(pathname))
      .sort((a, b) => b.literals - a.literals)[0];
    if (!match) return this.expectStatus(answer, 404, 'unknown path', 'NOT_FOUND');
    const operation = match.item[method];
    if (!operation) {
      const problems = this.expectStatus(
        answer,
        405,
        `no ${method.toUpperCase()} on ${match.template}`,
        'METHOD_NOT_ALLOWED',
      );
      const documented = METHODS.filter((m) => match.item[m]).map((m) => m.toUpperCase());
      const allow = (answer.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean);
      if (answer.status === 405 && [...allow].sort().join() !== [...documented].sort().join())
        problems.push(`Allow is "${allow.join(', ')}", the description has ${documented.join(', ')}`);
      return problems;
    }

    const label = `${operation.operationId ?? '?'} (${method.toUpperCase()} ${match.template})`;
    const status = String(answer.status);
    const response =
      operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses.default;
    if (!response)
      return [
        `${label}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`,
      ];
    if (method === 'head' || !response.content) {
      return answer.text === ''
        ? []
        : [`${label} ${status}: the description has no body, the answer has one`];
    }
    const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const content = response.content[mediaType];
    if (!content)
      return [
        `${label} ${status}: content type "${mediaType}" is not documented (documented: ${Object.keys(response.content).join(', ')})`,
      ];
    const validate = this.validator(`${label} ${status} ${mediaType}`, content.schema);
    // A binary body is checked as what it is to JSON Schema: a string of its bytes (Latin-1), so a schema's
    // minLength/maxLength count bytes.
    const instance = isJson(mediaType)
      ? answer.body
      : isText(mediaType)
        ? answer.text
        : Buffer.from(answer.bytes ?? new Uint8Array()).toString('latin1');
    if (validate(instance)) return [];
    return [`${label} ${status} ${mediaType}: the body does not match its schema`, ...ajvErrors(validate)];
  }

  /** A refusal no operation makes: the status and the error envelope with its code. */
  private expectStatus(answer: Answer, status: number, what: string, code: string): string[] {
    if (answer.status !== status)
      return [`${what}: answered ${answer.status}, the description says ${status}`];
    return this.envelope(answer, what, code);
  }

  private envelope(answer: Answer, what: string, code: string): string[] {
    // A HEAD answer is the headers of the GET one: never a body.
    if (answer.method.toUpperCase() === 'HEAD')
      return answer.text === '' ? [] : [`${what} ${answer.status}: a HEAD answer with a body`];
    const validate = this.validator('Error', { $ref: '#/components/schemas/Error' });
    if (!validate(answer.body))
      return [`${what} ${answer.status}: not the error envelope`, ...ajvErrors(validate)];
    const actual = (answer.body as { error: { code: string } }).error.code;
    return actual === code ? [] : [`${what} ${answer.status}: code ${actual}, expected ${code}`];
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as object);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function isText(mediaType: string): boolean {
  return mediaType.startsWith('text/');
}

/** `#/components/schemas/X` → the components schema registered with Ajv. */
function rewriteRefs(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`));
}

function ajvErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map(
    (e) =>
      `  ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)} (schema ${e.schemaPath})`,
  );
}

/** One description per stack and test file, fetched when the first request to the stack is sent. */
const descriptions = new Map<string, Promise<Description>>();

/**
 * The stack's description, fetched once. `call` asks for it before sending its request, so that a burst of
 * requests does not queue the description's fetch behind itself (and delay every answer of the burst).
 */
export function descriptionOf(baseUrl: string): Promise<Description> {
  let description = descriptions.get(baseUrl);
  if (!description) {
    description = (async () => {
      const response = await fetch(`${baseUrl}/openapi.json`);
      if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
      return new Description((await response.json()) as ConstructorParameters<typeof Description>[0]);
    })();
    description.catch(() => undefined); // reported by assertDescribed, which awaits it
    descriptions.set(baseUrl, description);
  }
  return description;
}

/** Throws, naming the operation, status and Ajv errors, when the answer is not what /openapi.json describes. */
export async function assertDescribed(baseUrl: string, answer: Answer): Promise<void> {
  const problems = (await descriptionOf(baseUrl)).check(answer);
  if (problems.length === 0) return;
  const body = answer.text.length > 600 ? `${answer.text.slice(0, 600)}…` : answer.text;
  throw new Error(
    `Answer to ${answer.method} ${answer.path} is not what /openapi.json describes:\n${problems.join('\n')}\nbody: ${body}`,
  );
}
