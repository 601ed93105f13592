import { isLimitedRoute, rateLimitHeaders } from '../../../shared/http/rate-limit.js';
import { ROUTES } from '../../../shared/routes.js';

describe('RateLimit headers (draft-ietf-httpapi-ratelimit-headers-11)', () => {
  it('names the policy as burst tokens per refill window, and the limit as tokens left and seconds to the next', () => {
    expect(
      rateLimitHeaders(
        { ratePerSecond: 20, burst: 40 },
        { allowed: true, remaining: 12, nextTokenSeconds: 1 },
      ),
    ).toEqual({
      'ratelimit-policy': '"firm-writes";q=40;w=2',
      ratelimit: '"firm-writes";r=12;t=1',
    });
  });
});

describe('the limited routes', () => {
  const limited = ROUTES.filter(isLimitedRoute);

  it('are the authenticated routes that append records (they sign), and no other', () => {
    expect(limited.map((r) => r.operationId).sort()).toEqual([
      'completeReviewJob',
      'createIncident',
      'escalateReviewJob',
      'restoreRecord',
      'startReviewJob',
      'submitReviewJob',
      'updateFirmSettings',
      'updateImpactAssessment',
      'updateIncident',
      'verifyLedger',
    ]);
    for (const route of limited) expect(route.auth.kind).toBe('authenticated');
  });

  it('may each write the main table, where the firm bucket lives', () => {
    for (const route of limited) expect(route.permissions.main).toBe('write');
  });
});
