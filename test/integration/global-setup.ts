import { startStack, type RunningStack } from '../support/local-stack.ts'; // loaded by Jest through CommonJS, so the real file name

declare global {
  var __GLS_STACK__: RunningStack | undefined;
}

/** One embedded stack for the whole integration run, started exactly like `npm start`. */
export default async function globalSetup(): Promise<void> {
  const stack = await startStack({
    // A fast repair loop, so the crash-repair test does not wait a minute.
    // A small inline verification limit, so longer chains exercise the background path.
    // Webhook retries 1 s apart, four attempts, a 2 s delivery timeout: the retry tests take seconds.
    // A fast SLA sweep and completion repair, so the review tests see breaches and repairs in seconds.
    env: {
      OUTBOX_SWEEP_INTERVAL_SECONDS: '1',
      OUTBOX_GRACE_SECONDS: '2',
      VERIFY_INLINE_MAX_RECORDS: '60',
      WEBHOOK_MAX_ATTEMPTS: '4',
      WEBHOOK_RETRY_BASE_SECONDS: '1',
      WEBHOOK_RETRY_MAX_SECONDS: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      SLA_SWEEP_INTERVAL_SECONDS: '1',
      COMPLETION_REPAIR_GRACE_SECONDS: '2',
      // The verification and restore tests damage rows by hand and count chain lengths exactly; the tamper watch
      // would append TAMPERING_DETECTED records to those chains at times of its own. It runs on its own stack
      // (test/integration/tamper-watch.test.ts).
      LOCAL_STREAM_WORKERS: 'false',
    },
  });
  globalThis.__GLS_STACK__ = stack;
  // Test workers start after global setup and inherit the environment.
  process.env.GLS_TEST_STACK = JSON.stringify({
    baseUrl: stack.baseUrl,
    dynamoEndpoint: stack.dynamoEndpoint,
    dataDir: stack.dataDir,
    pid: stack.pid,
  });
}
