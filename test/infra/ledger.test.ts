import type { Template } from 'aws-cdk-lib/assertions';
import { signingKeyAlias } from '../../lib/ledger.js';
import { synth } from './synth.js';
import { onlyResource } from './template-graph.js';

describe('ledger signing key', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  it('is an ECC_NIST_P256 signing key that outlives the stack', () => {
    const [, key] = onlyResource(template, 'AWS::KMS::Key');
    expect(key.Properties).toMatchObject({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    expect(key.Properties.EnableKeyRotation).not.toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it('has the alias operators and ledgerctl look it up by', () => {
    expect(signingKeyAlias('dev')).toBe('alias/gls-dev-ledger-signing');
    const [keyId] = onlyResource(template, 'AWS::KMS::Key');
    template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/gls-dev-ledger-signing',
      TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
  });
});
