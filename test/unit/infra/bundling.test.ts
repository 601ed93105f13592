import { bundleDefines, bundledClients } from '../../../lib/bundling.js';
import {
  ANY_CREDENTIAL,
  PUBLIC,
  routeFunctionPermissions,
  type Permissions,
  type RouteDef,
} from '../../../shared/routes/route.js';

describe('bundledClients', () => {
  it('bundles no optional client for a function that only uses DynamoDB', () => {
    expect(bundledClients({ main: 'read', ledger: 'read' })).toEqual({ s3: false, kms: false, sqs: false });
  });

  it('bundles S3 for any bucket permission, including ones added later', () => {
    expect(bundledClients({ immutable: 'read' }).s3).toBe(true);
    expect(bundledClients({ uploads: 'presign' }).s3).toBe(true);
    // A permission key this module has never heard of is a bucket (e.g. certificates).
    expect(bundledClients({ certificates: 'read' } as never).s3).toBe(true);
  });

  it('bundles KMS to sign or publish the key, SQS to queue', () => {
    expect(bundledClients({ sign: true })).toEqual({ s3: false, kms: true, sqs: false });
    expect(bundledClients({ publicKey: true }).kms).toBe(true);
    expect(bundledClients({ sign: false, queues: [] })).toEqual({ s3: false, kms: false, sqs: false });
    expect(bundledClients({ queues: ['ledger-archive'] }).sqs).toBe(true);
  });

  it('turns the choice into esbuild defines of string literals', () => {
    expect(bundleDefines({ sign: true })).toEqual({
      'process.env.GLS_BUNDLE_S3': '"false"',
      'process.env.GLS_BUNDLE_KMS': '"true"',
      'process.env.GLS_BUNDLE_SQS': '"false"',
      'process.env.GLS_BUNDLE_SIGN': '"true"',
      'process.env.GLS_BUNDLE_NOTE_SIGN': '"false"',
    });
    expect(bundleDefines({ publicKey: true })['process.env.GLS_BUNDLE_SIGN']).toBe('"false"');
    // Only the log's integrator carries the Ed25519 checkpoint signer.
    expect(bundleDefines({ sign: true, signCheckpoints: true })['process.env.GLS_BUNDLE_NOTE_SIGN']).toBe(
      '"true"',
    );
  });
});

describe('routeFunctionPermissions (what a route function is granted and bundled with)', () => {
  const route = (permissions: Permissions, auth: RouteDef['auth'] = ANY_CREDENTIAL) =>
    ({ permissions, auth }) as RouteDef;

  it('lets a route that does not write the main table read it and queue a first sign-in (SQS bundled)', () => {
    const effective = routeFunctionPermissions(route({ ledger: 'read' }));
    expect(effective).toEqual({ ledger: 'read', main: 'read', queues: ['user-activation'] });
    expect(bundledClients(effective).sqs).toBe(true);
  });

  it('adds nothing to a route that writes the main table (it links a first sign-in itself) or a public one', () => {
    expect(routeFunctionPermissions(route({ main: 'write', queues: ['webhooks'] }))).toEqual({
      main: 'write',
      queues: ['webhooks'],
    });
    expect(routeFunctionPermissions(route({}, PUBLIC))).toEqual({});
  });
});
