import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import '../../shared/runtime/aws-deps.js';
import type { RecordMessage } from '../../shared/ledger-writer/dispatch.js';
import { publicBaseUrl } from '../../shared/runtime/config.js';
import { getDeps } from '../../shared/runtime/deps.js';
import { logger } from '../../shared/runtime/logger.js';
import { issueCertificate } from '../../shared/services/certificate-issue.js';

/**
 * Consumes the certificates queue (auto-issue of outcome and approval records, and on-request issue): each
 * message issues the record's one certificate. Issuing is idempotent, so SQS's at-least-once delivery and a
 * request racing the auto-issue converge on one certificate. Failures are reported per message; after
 * maxReceiveCount they wait in the dead-letter queue.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const deps = getDeps();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await issueCertificate(deps, JSON.parse(record.body) as RecordMessage, publicBaseUrl());
    } catch (error) {
      logger.error('Issuing a certificate failed', { messageId: record.messageId, error: error as Error });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
