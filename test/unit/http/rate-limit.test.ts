import { isLimitedRoute, rateLimitHeaders } from '../../../shared/http/rate-limit.js';
import { buildOpenApi } from '../../../shared/openapi.js';
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

describe('the OpenAPI description', () => {
  const paths = buildOpenApi().paths as Record<string, Record<string, any>>;
  const operations = Object.values(paths).flatMap((ops) => Object.values(ops));
  const limitedIds = new Set(ROUTES.filter(isLimitedRoute).map((r) => r.operationId));
  const isLimited = (op: any) => limitedIds.has(String(op.operationId).replace(/Principal$/, ''));

  it('documents 429 RATE_LIMITED with Retry-After and the RateLimit headers on every limited operation', () => {
    const limited = operations.filter(isLimited);
    // The review moves also answer under /v1/principal.
    expect(limited.length).toBeGreaterThan(limitedIds.size);
    for (const op of limited) {
      const refused = op.responses['429'];
      expect(refused.description).toContain('RATE_LIMITED');
      expect(Object.keys(refused.headers).sort()).toEqual(['RateLimit', 'RateLimit-Policy', 'Retry-After']);
      expect(refused.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
      expect(op.description).toContain('Limited per firm');
      const success = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      expect(success.length).toBeGreaterThan(0);
      for (const [, response] of success)
        expect(Object.keys((response as any).headers)).toEqual(['RateLimit-Policy', 'RateLimit']);
    }
  });

  it('leaves the other operations without them', () => {
    for (const op of operations.filter((o) => !isLimited(o))) {
      for (const response of Object.values(op.responses))
        expect((response as any).headers?.RateLimit).toBeUndefined();
    }
  });
});
