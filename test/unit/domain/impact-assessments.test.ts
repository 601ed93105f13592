import type { Principal } from '../../../shared/domain/auth/principal.js';
import {
  canSupersede,
  canTransition,
  defaultOutcomes,
  IA_STATUSES,
  isImmutable,
  latestApproval,
  mayApprove,
  mergeOutcomes,
  modelPairProblem,
  withApproval,
  withoutApproval,
  type IaStatus,
} from '../../../shared/domain/governance/impact-assessments.js';

describe('impact assessment status graph', () => {
  const allowed: [IaStatus, IaStatus][] = [
    ['DRAFT', 'PENDING_SIGNOFF'],
    ['PENDING_SIGNOFF', 'APPROVED'],
    ['PENDING_SIGNOFF', 'REJECTED'],
    ['PENDING_SIGNOFF', 'DRAFT'],
    ['REJECTED', 'DRAFT'],
    // Staying put (an edit of fields) is allowed where edits are.
    ['DRAFT', 'DRAFT'],
    ['PENDING_SIGNOFF', 'PENDING_SIGNOFF'],
    ['REJECTED', 'REJECTED'],
  ];

  it('allows exactly the listed moves through the update endpoint', () => {
    for (const from of IA_STATUSES)
      for (const to of IA_STATUSES) {
        const expected = allowed.some(([f, t]) => f === from && t === to);
        expect([from, to, canTransition(from, to)]).toEqual([from, to, expected]);
      }
  });

  it('APPROVED and SUPERSEDED are immutable; only APPROVED can be superseded', () => {
    expect(IA_STATUSES.filter(isImmutable)).toEqual(['APPROVED', 'SUPERSEDED']);
    expect(IA_STATUSES.filter(canSupersede)).toEqual(['APPROVED']);
  });
});

describe('approval rights', () => {
  const user = (role: 'FIRM_ADMIN' | 'REVIEWER' | 'LEAD_REVIEWER'): Principal => ({
    kind: 'user',
    firmId: 'f',
    userId: 'u',
    name: 'n',
    email: 'e@x',
    role,
    fcaRef: null,
  });
  it('only signed-in LEAD_REVIEWER and FIRM_ADMIN users', () => {
    expect(mayApprove(user('LEAD_REVIEWER'))).toBe(true);
    expect(mayApprove(user('FIRM_ADMIN'))).toBe(true);
    expect(mayApprove(user('REVIEWER'))).toBe(false);
    expect(mayApprove({ kind: 'apiKey', firmId: 'f', keyId: 'k', name: 'default' })).toBe(false);
  });
});

describe('outcomes', () => {
  it('default to four empty LOW areas', () => {
    expect(defaultOutcomes()).toEqual({
      productsAndServices: { response: '', riskRating: 'LOW' },
      priceAndValue: { response: '', riskRating: 'LOW' },
      consumerUnderstanding: { response: '', riskRating: 'LOW' },
      consumerSupport: { response: '', riskRating: 'LOW' },
    });
  });

  it('merge area by area and field by field', () => {
    const base = mergeOutcomes(defaultOutcomes(), {
      priceAndValue: { response: 'Fair fee', riskRating: 'MEDIUM' },
    });
    const next = mergeOutcomes(base, {
      priceAndValue: { riskRating: 'HIGH' },
      consumerSupport: { response: 'x' },
    });
    expect(next.priceAndValue).toEqual({ response: 'Fair fee', riskRating: 'HIGH' });
    expect(next.consumerSupport).toEqual({ response: 'x', riskRating: 'LOW' });
    expect(next.productsAndServices).toEqual({ response: '', riskRating: 'LOW' });
    expect(base.priceAndValue).toEqual({ response: 'Fair fee', riskRating: 'MEDIUM' });
  });

  it('model provider and version go together', () => {
    expect(modelPairProblem(null, null)).toBeNull();
    expect(modelPairProblem('a', '1')).toBeNull();
    expect(modelPairProblem('a', null)).not.toBeNull();
    expect(modelPairProblem(null, '1')).not.toBeNull();
  });
});

describe('approved-assessment index', () => {
  it('names the latest approval still in the set', () => {
    let set = withApproval({}, 'ia_A', '2026-01-01T00:00:00.000Z');
    set = withApproval(set, 'ia_B', '2026-02-01T00:00:00.000Z');
    expect(latestApproval(set)).toBe('ia_B');
    expect(latestApproval(withoutApproval(set, 'ia_A'))).toBe('ia_B');
    expect(latestApproval(withoutApproval(set, 'ia_B'))).toBe('ia_A');
    expect(latestApproval(withoutApproval(withoutApproval(set, 'ia_B'), 'ia_A'))).toBeNull();
    // Same instant: the larger id wins, deterministically.
    expect(latestApproval({ ia_A: 't', ia_C: 't', ia_B: 't' })).toBe('ia_C');
    expect(set).toEqual({ ia_A: '2026-01-01T00:00:00.000Z', ia_B: '2026-02-01T00:00:00.000Z' });
  });
});
