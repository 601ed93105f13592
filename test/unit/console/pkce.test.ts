import { pkceChallenge } from '../../../console/src/app/pkce.js';

describe("the console's PKCE challenge (S256, computed without WebCrypto)", () => {
  it('is BASE64URL(SHA-256(verifier)): the example of RFC 7636, appendix B', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });
});
