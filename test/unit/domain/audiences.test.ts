import { acceptedAudiences } from '../../../shared/domain/auth/audiences.js';

describe('acceptedAudiences (OIDC_AUDIENCE)', () => {
  it('reads one client id, or a comma-separated list (the API client and the web console client)', () => {
    expect(acceptedAudiences('governance-ledger-api')).toEqual(['governance-ledger-api']);
    expect(acceptedAudiences('4tfa9q0api,7k2m1console')).toEqual(['4tfa9q0api', '7k2m1console']);
    expect(acceptedAudiences(' a , b ,')).toEqual(['a', 'b']);
  });

  it('refuses a setting that names no audience rather than accepting any', () => {
    expect(() => acceptedAudiences('')).toThrow(/empty/);
    expect(() => acceptedAudiences(' , ')).toThrow(/empty/);
  });
});
