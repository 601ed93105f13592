import type { SignMetrics } from '../throttled-signer.js';

export const METRICS_NAMESPACE = 'GovernanceLedger';

/**
 * Sign calls as CloudWatch metrics through the Embedded Metric Format: a JSON log line CloudWatch Logs turns into
 * the metrics SignCalls and SignThrottled (namespace GovernanceLedger, dimension Service). Counts made in the same
 * turn of the event loop share one line, written at the end of that turn (before the invocation can end).
 */
export function emfSignMetrics(log: (line: string) => void = console.log): SignMetrics {
  let signCalls = 0;
  let signThrottled = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (signCalls === 0 && signThrottled === 0) return;
    log(
      JSON.stringify({
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            {
              Namespace: METRICS_NAMESPACE,
              Dimensions: [['Service']],
              Metrics: [
                { Name: 'SignCalls', Unit: 'Count' },
                { Name: 'SignThrottled', Unit: 'Count' },
              ],
            },
          ],
        },
        Service: 'ledger-signer',
        SignCalls: signCalls,
        SignThrottled: signThrottled,
      }),
    );
    signCalls = 0;
    signThrottled = 0;
  };
  const count = (add: () => void) => {
    add();
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    signed: () => count(() => (signCalls += 1)),
    throttled: () => count(() => (signThrottled += 1)),
  };
}
