import { describe, expect, it } from '@jest/globals';
import { credentialHeaders, presentedCredential } from '../../../shared/http/credential-headers.js';

describe('credential headers', () => {
  it('reads the API key and the Authorization header as sent (lower-case names, as the gateways give them)', () => {
    expect(credentialHeaders({ 'x-service-key': 'gls_k', authorization: 'Bearer t', other: 'x' })).toEqual({
      apiKey: 'gls_k',
      authorization: 'Bearer t',
    });
    expect(credentialHeaders(undefined)).toEqual({ apiKey: undefined, authorization: undefined });
  });

  it('presents the API key first, then the bearer token, and nothing for an empty or missing header', () => {
    expect(presentedCredential({ 'x-service-key': 'gls_k', authorization: 'Bearer t' })).toEqual({
      kind: 'key',
      value: 'gls_k',
    });
    expect(presentedCredential({ authorization: 'Bearer t' })).toEqual({ kind: 'bearer', value: 'Bearer t' });
    expect(presentedCredential({ 'x-service-key': '', authorization: 'Bearer t' })).toEqual({
      kind: 'bearer',
      value: 'Bearer t',
    });
    expect(presentedCredential({ 'x-service-key': '' })).toBeUndefined();
    expect(presentedCredential({})).toBeUndefined();
  });
});
