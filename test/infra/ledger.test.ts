import type { Template } from 'aws-cdk-lib/assertions';
import { signingKeyAlias } from '../../lib/ledger.js';
import { synth } from './synth.js';
import { allowedOn, functionStatements, onlyResource, resources, routeFunctionId } from './template-graph.js';

describe('ledger signing key', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  it('is an ECC_NIST_P256 signing key that outlives the stack', () => {
    const [, key] = onlyResource(template, 'AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256' });
    expect(key.Properties).toMatchObject({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    expect(key.Properties.EnableKeyRotation).not.toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it('has the alias operators and ledgerctl look it up by', () => {
    expect(signingKeyAlias('dev')).toBe('alias/gls-dev-ledger-signing');
    const [keyId] = onlyResource(template, 'AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256' });
    template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/gls-dev-ledger-signing',
      TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
  });
});

describe('ledger signing keys after rotations (-c signingKeys=3 -c retiredSigningKeys=1)', () => {
  let template: Template;
  beforeAll(() => {
    template = synth({ signingKeys: 3, retiredSigningKeys: 1 });
  });

  const keyIds = () => {
    const keys = Object.entries(resources(template, 'AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256' }));
    const byAlias = (alias: string) =>
      Object.values(resources(template, 'AWS::KMS::Alias')).find((a) => a.Properties.AliasName === alias)!
        .Properties.TargetKeyId as { 'Fn::GetAtt': [string, string] };
    return {
      keys,
      first: byAlias('alias/gls-dev-ledger-signing')['Fn::GetAtt'][0],
      second: byAlias('alias/gls-dev-ledger-signing-2')['Fn::GetAtt'][0],
      third: byAlias('alias/gls-dev-ledger-signing-3')['Fn::GetAtt'][0],
    };
  };

  it('keeps every key, each an ECC_NIST_P256 signing key retained with the stack, the first under its old id', () => {
    const { keys, first } = keyIds();
    expect(keys).toHaveLength(3);
    for (const [, key] of keys) {
      expect(key.Properties).toMatchObject({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
      expect(key.DeletionPolicy).toBe('Retain');
    }
    // The original key keeps its construct id (Ledger/SigningKey): adding keys never replaces it.
    expect(first).toMatch(/^LedgerSigningKey[0-9A-F]{8}$/);
  });

  it('lets appending functions Sign only with keys not retired, and read every public key', () => {
    const { first, second, third } = keyIds();
    const statements = functionStatements(template, routeFunctionId(template, 'PATCH /v1/firm/me/settings'));
    const kms = (id: string) => [...allowedOn(statements, id)].filter((a) => a.startsWith('kms:')).sort();
    expect(kms(first)).toEqual(['kms:GetPublicKey']);
    expect(kms(second)).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    expect(kms(third)).toEqual(['kms:GetPublicKey', 'kms:Sign']);
  });

  it('refuses to retire every key', () => {
    expect(() => synth({ signingKeys: 2, retiredSigningKeys: 2 })).toThrow(/retiredSigningKeys/);
  });
});
