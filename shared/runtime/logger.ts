import { Logger } from '@aws-lambda-powertools/logger';

/** The one structured JSON logger (Powertools). Handlers append requestId and firmId per request. */
export const logger = new Logger({
  serviceName: 'governance-ledger',
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'INFO',
});
