import { Match, type Template } from 'aws-cdk-lib/assertions';
import { ROUTES } from '../../shared/routes.js';
import { ENV } from '../../shared/runtime/config.js';
import type { Permissions } from '../../shared/routes/route.js';
import { takesIdempotencyKey } from '../../shared/routes/route.js';
import { IDEMPOTENCY_LEADING_KEYS } from '../../shared/store/tables.js';
import { tableName } from '../../shared/store/tables.js';
import { WORKERS } from '../../shared/workers/table.js';
import { synth } from './synth.js';
import {
  allowedActions,
  allowedOn,
  allStatements,
  covers,
  functionIdByDescription,
  mentions,
  functionStatements,
  lambdaFunction,
  onlyResource,
  referencedId,
  routeFunctionId,
  type Statement,
} from './template-graph.js';

/** First sign-in: activatedAt and subject on the user item, plus a subject index item (activateUser). */
const onlyAttributes = (attributes: string[]) => ({
  'ForAllValues:StringEquals': { 'dynamodb:Attributes': attributes },
});
const ACTIVATION_WRITES = {
  'dynamodb:UpdateItem': onlyAttributes(['pk', 'sk', 'activatedAt', 'subject']),
  'dynamodb:PutItem': onlyAttributes(['pk', 'sk', 'userId']),
};

/** The condition confining a grant to Idempotency-Key items (lib/data.ts grantIdempotencyKeys). */
const IDEMPOTENCY_KEYS_ONLY = 'ForAllValues:StringLike';

describe('least privilege', () => {
  let template: Template;
  let ids: { main: string; ledger: string; immutable: string; key: string };
  const statementsOf = (routeKey: string): Statement[] =>
    functionStatements(template, routeFunctionId(template, routeKey));
  /** Every route and worker with its function's statements. */
  const everyFunction = (): { name: string; permissions: Permissions; statements: Statement[] }[] => [
    ...ROUTES.map((route) => ({
      name: `${route.method} ${route.path}`,
      permissions: route.permissions,
      statements: statementsOf(`${route.method} ${route.path}`),
    })),
    ...WORKERS.map((worker) => ({
      name: worker.name,
      permissions: worker.permissions,
      statements: functionStatements(template, functionIdByDescription(template, worker.description)),
    })),
  ];
  /** Actions other than X-Ray tracing, which every function may do (on resource `*`). */
  const withoutTracing = (actions: Iterable<string>) =>
    [...actions].filter((action) => !action.startsWith('xray:')).sort();

  beforeAll(() => {
    template = synth();
    ids = {
      main: onlyResource(template, 'AWS::DynamoDB::Table', { TableName: tableName('dev', 'main') })[0],
      ledger: onlyResource(template, 'AWS::DynamoDB::Table', { TableName: tableName('dev', 'ledger') })[0],
      immutable: onlyResource(template, 'AWS::S3::Bucket', { ObjectLockEnabled: true })[0],
      key: onlyResource(template, 'AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256' })[0],
    };
  });

  /**
   * GET routes that deliberately write, each with its reason; they may write the main table and nothing else.
   * The reviewer queue assigns waiting work to the caller before answering (docs/architecture.md §7c).
   */
  const WRITING_GETS = new Set(['/v1/review/queue']);

  it.each(ROUTES.filter((route) => route.method === 'GET' && WRITING_GETS.has(route.path)))(
    'lets GET $path write the main table only (routing on read)',
    (route) => {
      const statements = statementsOf(`GET ${route.path}`).filter((st) => st.Effect === 'Allow');
      for (const action of ['s3:PutObject', 's3:DeleteObject', 'kms:Sign', 'sqs:SendMessage']) {
        expect(statements.some((st) => st.Action.some((pattern) => covers(pattern, action)))).toBe(false);
      }
      for (const st of statements.filter((st) => st.Action.some((a) => a.startsWith('dynamodb:'))))
        expect(mentions(st.Resource, ids.ledger)).toBe(false);
    },
  );

  /** The queue a first sign-in on a read-only route goes to (the user-activation worker's event source). */
  const activationQueue = (): string => {
    const worker = WORKERS.find((w) => w.name === 'user-activation')!;
    const fn = functionIdByDescription(template, worker.description);
    const [, mapping] = onlyResource(template, 'AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fn },
    });
    return referencedId(mapping.Properties.EventSourceArn);
  };

  it.each(ROUTES.filter((route) => route.method === 'GET' && !WRITING_GETS.has(route.path)))(
    'lets read-only route GET $path write nothing; it may only queue a first sign-in',
    (route) => {
      const statements = statementsOf(`GET ${route.path}`);
      const writes = [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
        's3:PutObject',
        's3:DeleteObject',
        'kms:Sign',
        'sqs:SendMessage',
      ];
      const allowed = statements.filter((st) => st.Effect === 'Allow');
      for (const action of writes) {
        const granting = allowed.filter((st) => st.Action.some((pattern) => covers(pattern, action)));
        // The only thing a GET may send: a user's first sign-in, to the user-activation queue (issue 12 part 8).
        if (action === 'sqs:SendMessage' && route.auth.kind !== 'public') {
          expect(granting).toHaveLength(1);
          expect(referencedId(granting[0]!.Resource)).toBe(activationQueue());
        } else expect({ action, granting }).toEqual({ action, granting: [] });
      }
    },
  );

  it('lets GET /v1/ledger/records read, never write the ledger or sign', () => {
    const statements = statementsOf('GET /v1/ledger/records');
    const actions = allowedActions(statements);
    for (const action of ['dynamodb:DeleteItem', 'kms:Sign', 's3:PutObject'])
      expect(actions).not.toContain(action);
    const onLedger = allowedOn(statements, ids.ledger);
    expect(onLedger).toContain('dynamodb:Query');
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem']) expect(onLedger).not.toContain(action);
    // No write at all, not even a first sign-in's (queued for the user-activation worker instead).
    expect(statements.filter((s) => s.Action.some((a) => a in ACTIVATION_WRITES))).toEqual([]);
  });

  it('lets PATCH /v1/firm/me/settings append a signed record and its immutable copy', () => {
    const statements = statementsOf('PATCH /v1/firm/me/settings');
    expect(withoutTracing(allowedOn(statements, ids.key))).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    expect(allowedOn(statements, ids.ledger)).toContain('dynamodb:PutItem');
    expect(allowedOn(statements, ids.main)).toContain('dynamodb:UpdateItem');
    expect(allowedOn(statements, ids.immutable)).toContain('s3:PutObject');
  });

  it('lets POST /v1/review/uploads put (presign) only into the uploads bucket, and nothing else in S3', () => {
    const uploads = onlyResource(template, 'AWS::S3::Bucket', {
      LifecycleConfiguration: Match.anyValue(),
    })[0];
    for (const routeKey of ['POST /v1/review/uploads', 'POST /v1/principal/uploads']) {
      const statements = statementsOf(routeKey);
      const s3 = statements.filter((s) => s.Effect === 'Allow' && s.Action.some((a) => a.startsWith('s3:')));
      expect(s3).toHaveLength(1);
      expect(s3[0]!.Action).toEqual(['s3:PutObject']);
      expect(mentions(s3[0]!.Resource, uploads)).toBe(true);
      for (const other of [ids.immutable, ...Object.keys(template.findResources('AWS::S3::Bucket'))])
        if (other !== uploads) expect(mentions(s3[0]!.Resource, other)).toBe(false);
      const fn = lambdaFunction(template, routeFunctionId(template, routeKey));
      expect(
        (fn.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables,
      ).toHaveProperty('UPLOADS_BUCKET_NAME');
      expect(allowedActions(statements)).not.toContain('kms:Sign');
    }
  });

  it('lets the signing-key routes read the key history and fetch the first public key, nothing else', () => {
    for (const path of ['/.well-known/signing-key', '/.well-known/signing-keys']) {
      const statements = statementsOf(`GET ${path}`);
      const actions = withoutTracing(allowedActions(statements));
      expect(actions.filter((a) => a.startsWith('kms:'))).toEqual(['kms:GetPublicKey']);
      expect(actions.filter((a) => !a.startsWith('kms:') && !a.startsWith('dynamodb:'))).toEqual([]);
      for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
        expect(actions).not.toContain(write);
      expect(allowedOn(statements, ids.ledger)).toContain('dynamodb:Query');
    }
  });

  it('gives public routes without permissions nothing beyond tracing', () => {
    for (const route of ROUTES.filter(
      (r) => r.auth.kind === 'public' && Object.keys(r.permissions).length === 0,
    ))
      expect(withoutTracing(allowedActions(statementsOf(`${route.method} ${route.path}`)))).toEqual([]);
  });

  it('lets authenticated routes look up credentials; a route that does not write the main table only queues a first sign-in', () => {
    for (const route of ROUTES.filter((r) => r.auth.kind !== 'public')) {
      const statements = statementsOf(`${route.method} ${route.path}`);
      expect(allowedOn(statements, ids.main)).toContain('dynamodb:GetItem');
      if (route.permissions.main === 'write') continue;
      // Idempotency-Key items aside (their own conditioned grant, asserted below).
      const onMain = allowedOn(
        statements.filter((s) => s.Condition === undefined || !(IDEMPOTENCY_KEYS_ONLY in s.Condition)),
        ids.main,
      );
      for (const action of [
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:BatchWriteItem',
      ])
        expect({ route: route.path, action, granted: onMain.has(action) }).toMatchObject({ granted: false });
      const sends = statements.filter((s) => s.Effect === 'Allow' && s.Action.includes('sqs:SendMessage'));
      expect(sends.some((s) => mentions(s.Resource, activationQueue()))).toBe(true);
    }
  });

  it('lets every POST and PATCH route write its Idempotency-Key items, and only those when it writes nothing else', () => {
    const keyRoutes = ROUTES.filter((r) => takesIdempotencyKey(r));
    expect(keyRoutes.length).toBeGreaterThan(20);
    for (const route of keyRoutes) {
      const statements = statementsOf(`${route.method} ${route.path}`);
      const granted = allowedOn(statements, ids.main);
      for (const action of [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ])
        expect({ route: route.path, action, granted: granted.has(action) }).toMatchObject({ granted: true });
      if (route.permissions.main === 'write') continue;
      const conditioned = statements.filter(
        (s) => s.Effect === 'Allow' && s.Condition !== undefined && IDEMPOTENCY_KEYS_ONLY in s.Condition,
      );
      expect(conditioned).toHaveLength(1);
      expect(conditioned[0]!.Condition![IDEMPOTENCY_KEYS_ONLY]).toEqual({
        'dynamodb:LeadingKeys': [IDEMPOTENCY_LEADING_KEYS],
      });
      expect([...conditioned[0]!.Action].sort()).toEqual([
        'dynamodb:DeleteItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
      ]);
    }
  });

  it('gives the first sign-in writes to one function only, the user-activation worker', () => {
    const holders = everyFunction().filter(({ statements }) =>
      statements.some(
        (s) =>
          s.Effect === 'Allow' &&
          s.Condition !== undefined &&
          !(IDEMPOTENCY_KEYS_ONLY in s.Condition) &&
          s.Action.some((a) => a in ACTIVATION_WRITES),
      ),
    );
    expect(holders.map((h) => h.name)).toEqual(['user-activation']);
    const worker = holders[0]!;
    for (const [action, condition] of Object.entries(ACTIVATION_WRITES)) {
      const granting = worker.statements.filter(
        (s) => s.Effect === 'Allow' && s.Action.some((a) => covers(a, action)),
      );
      expect(granting).toHaveLength(1);
      expect(granting[0]!.Condition).toEqual(condition);
      expect(mentions(granting[0]!.Resource, ids.main)).toBe(true);
    }
    // It verifies the queued token again, so it knows the issuer.
    const fn = lambdaFunction(
      template,
      functionIdByDescription(template, WORKERS.find((w) => w.name === 'user-activation')!.description),
    );
    expect(Object.keys(fn.Properties.Environment.Variables as object)).toEqual(
      expect.arrayContaining([ENV.oidcIssuer, ENV.oidcAudience, ENV.oidcJwksUrl]),
    );
  });

  it('lets only the certificate worker write certificate PDFs, and only declared readers read them', () => {
    const worker = WORKERS.find((w) => w.name === 'certificate-issue')!;
    const workerFn = functionIdByDescription(template, worker.description);
    const bucket = referencedId(
      (lambdaFunction(template, workerFn).Properties.Environment.Variables as Record<string, unknown>)[
        ENV.certificatesBucket
      ],
    );
    for (const { name, permissions, statements } of everyFunction()) {
      const actions = [...allowedOn(statements, bucket)].filter((a) => a.startsWith('s3:')).sort();
      const expected =
        permissions.certificates === 'write'
          ? ['s3:GetObject', 's3:PutObject']
          : permissions.certificates === 'read'
            ? ['s3:GetObject']
            : [];
      expect({ name, actions }).toEqual({ name, actions: expected });
    }
    expect(WORKERS.filter((w) => w.permissions.certificates === 'write').map((w) => w.name)).toEqual([
      'certificate-issue',
    ]);
    expect(ROUTES.filter((r) => r.permissions.certificates === 'write')).toEqual([]);
    // The worker prints verification links: it knows the public base URL (the API's URL by default).
    expect(lambdaFunction(template, workerFn).Properties.Environment.Variables).toHaveProperty(
      ENV.publicBaseUrl,
    );
  });

  it('gives the public base URL to exactly the routes and workers that declare they need it', () => {
    const hasUrl = (functionId: string) =>
      ENV.publicBaseUrl in
      ((lambdaFunction(template, functionId).Properties.Environment?.Variables ?? {}) as object);
    for (const route of ROUTES) {
      const has = hasUrl(routeFunctionId(template, `${route.method} ${route.path}`));
      expect({ route: route.operationId, has }).toEqual({
        route: route.operationId,
        has: route.needsPublicBaseUrl === true,
      });
    }
    for (const worker of WORKERS) {
      const has = hasUrl(functionIdByDescription(template, worker.description));
      expect({ worker: worker.name, has }).toEqual({
        worker: worker.name,
        has: worker.needsPublicBaseUrl === true,
      });
    }
    // The log's verifier keys are named by the checkpoint origin, the host of that URL.
    expect(ROUTES.filter((r) => r.needsPublicBaseUrl).map((r) => r.operationId)).toEqual(['getLogVkeys']);
  });

  it('grants DeleteItem on the ledger table only to archive and append', () => {
    for (const { name, permissions, statements } of everyFunction()) {
      const mayDelete = ['archive', 'append', 'restore'].includes(permissions.ledger ?? '');
      expect({ name, deletes: allowedOn(statements, ids.ledger).has('dynamodb:DeleteItem') }).toEqual({
        name,
        deletes: mayDelete,
      });
    }
  });

  it('declares the row-overwriting level only for the restore route', () => {
    const restorers = ROUTES.filter((r) => r.permissions.ledger === 'restore').map((r) => r.operationId);
    expect(restorers).toEqual(['restoreRecord']);
    expect(WORKERS.filter((w) => w.permissions.ledger === 'restore')).toEqual([]);
  });

  it('never lets anything update, batch-write or drop the ledger table', () => {
    for (const { statements } of everyFunction()) {
      for (const pattern of allowedOn(statements, ids.ledger)) {
        for (const action of ['dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteTable'])
          expect(covers(pattern, action)).toBe(false);
      }
    }
  });

  it('signs only where a route or worker declares it', () => {
    for (const { name, permissions, statements } of everyFunction()) {
      expect({ name, signs: allowedActions(statements).has('kms:Sign') }).toEqual({
        name,
        signs: permissions.sign === true,
      });
    }
  });

  it('grants no policy anywhere a way to delete or unlock immutable objects', () => {
    const forbidden = [
      's3:DeleteObject',
      's3:DeleteObjectVersion',
      's3:PutObjectRetention',
      's3:PutObjectLegalHold',
      's3:BypassGovernanceRetention',
      's3:PutBucketObjectLockConfiguration',
      's3:PutLifecycleConfiguration',
    ];
    const patterns = allowedOn(allStatements(template), ids.immutable);
    expect(patterns.size).toBeGreaterThan(0);
    for (const pattern of patterns)
      for (const action of forbidden)
        expect({ pattern, action, allowed: covers(pattern, action) }).toMatchObject({
          allowed: false,
        });
  });

  it('lets the archive worker write immutable copies and clear the outbox, and the sweep only queue them', () => {
    const byName = new Map(everyFunction().map((f) => [f.name, f.statements]));
    const archive = byName.get('ledger-archive')!;
    expect(withoutTracing(allowedOn(archive, ids.immutable))).toEqual(['s3:GetObject', 's3:PutObject']);
    expect(allowedOn(archive, ids.ledger)).not.toContain('dynamodb:PutItem');
    const sweep = byName.get('ledger-outbox-sweep')!;
    expect(withoutTracing(allowedActions(sweep)).filter((a) => !a.startsWith('dynamodb:'))).toEqual([
      'sqs:SendMessage',
    ]);
  });

  it('lets the backup reconciliation read the ledger and list the immutable copies, writing only the main table (issue 14)', () => {
    const reconcile = new Map(everyFunction().map((f) => [f.name, f.statements])).get('backup-reconcile')!;
    const onLedger = allowedOn(reconcile, ids.ledger);
    expect(onLedger).toContain('dynamodb:Query');
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
      expect(onLedger).not.toContain(action);
    expect(withoutTracing(allowedOn(reconcile, ids.immutable))).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect([...allowedOn(reconcile, ids.main)]).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:Query']),
    );
    for (const action of ['kms:Sign', 'sqs:SendMessage'])
      expect(allowedActions(reconcile)).not.toContain(action);
  });
});
