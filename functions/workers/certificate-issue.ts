import type { RecordMessage } from '../../shared/ledger-writer/dispatch.js';
import { publicBaseUrl } from '../../shared/runtime/config.js';
import { issueCertificate } from '../../shared/services/certificate-issue.js';
import { queueWorker } from '../../shared/workers/handler.js';

/**
 * Consumes the certificates queue (auto-issue of outcome and approval records, and on-request issue): each
 * message issues the record's one certificate. Issuing is idempotent, so SQS's at-least-once delivery and a
 * request racing the auto-issue converge on one certificate. Failures are reported per message; after
 * maxReceiveCount they wait in the dead-letter queue.
 */
export const handler = queueWorker<RecordMessage>(
  async (deps, message) => {
    await issueCertificate(deps, message, publicBaseUrl());
  },
  { failureLog: 'Issuing a certificate failed' },
);
