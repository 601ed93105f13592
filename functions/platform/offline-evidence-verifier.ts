import {
  EVIDENCE_VERIFIER_PAGE_CSP,
  EVIDENCE_VERIFIER_PAGE_HTML,
} from '../../shared/generated/evidence-verifier-page.js';
import { defineHandler } from '../../shared/http/handler.js';
import * as platform from '../../shared/routes/platform.js';

/** Its own script and style only (by hash), never framed; static, so caches may keep it a few minutes. */
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `${EVIDENCE_VERIFIER_PAGE_CSP}; frame-ancestors 'none'`,
  'cache-control': 'public, max-age=300',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export const handler = defineHandler(platform.offlineEvidenceVerifier, async () => ({
  statusCode: 200,
  headers: HEADERS,
  body: EVIDENCE_VERIFIER_PAGE_HTML,
}));
