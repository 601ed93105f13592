import type { Template } from 'aws-cdk-lib/assertions';
import { checkpointKeyAlias } from '../../lib/ledger.js';
import { WORKERS } from '../../shared/workers/table.js';
import { synth } from './synth.js';
import {
  allowedOn,
  functionIdByDescription,
  functionStatements,
  onlyResource,
  resources,
} from './template-graph.js';

/** The verifiable log's Ed25519 checkpoint key (issue 31): retained, and only the integrator may sign with it. */
describe('log checkpoint key', () => {
  let template: Template;
  let keyId: string;
  beforeAll(() => {
    template = synth();
    [keyId] = onlyResource(template, 'AWS::KMS::Key', { KeySpec: 'ECC_NIST_EDWARDS25519' });
  });

  it('is an ECC_NIST_EDWARDS25519 signing key that outlives the stack, under its alias', () => {
    const key = resources(template, 'AWS::KMS::Key')[keyId]!;
    expect(key.Properties).toMatchObject({ KeyUsage: 'SIGN_VERIFY' });
    expect(key.DeletionPolicy).toBe('Retain');
    template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: checkpointKeyAlias('dev'),
      TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
  });

  it('lets the log-checkpoint worker alone Sign with it, and tells it the key by CHECKPOINT_KEY_ID', () => {
    const worker = WORKERS.find((w) => w.name === 'log-checkpoint')!;
    const workerId = functionIdByDescription(template, worker.description);
    expect(
      [...allowedOn(functionStatements(template, workerId), keyId)]
        .filter((a) => a.startsWith('kms:'))
        .sort(),
    ).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    const env = resources(template, 'AWS::Lambda::Function')[workerId]!.Properties.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(env.Variables.CHECKPOINT_KEY_ID).toBeDefined();
    const signers = Object.keys(resources(template, 'AWS::Lambda::Function')).filter((fn) => {
      try {
        return allowedOn(functionStatements(template, fn), keyId).has('kms:Sign');
      } catch {
        return false;
      }
    });
    expect(signers).toEqual([workerId]);
  });
});
