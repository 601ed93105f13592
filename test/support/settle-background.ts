import { backgroundSettled } from '../../shared/runtime/background-work.js';

// A test file that ran the ledger writer in its own process waits for the work the writer goes on with after
// answering (shared/runtime/background-work.ts) before it ends: otherwise that work's requests outlive the file,
// and what they log lands after Jest froze the file's console (which fails the run when Jest runs in band).
// Bounded: work that waits on an instance a test froze on purpose never settles, and logs nothing either.
afterAll(() => backgroundSettled(20_000), 30_000);
