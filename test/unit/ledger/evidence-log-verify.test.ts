import { nodeEvidenceCrypto } from '../../../shared/ledger/evidence-crypto-node.js';
import { verifyEvidenceBundle } from '../../../shared/ledger/evidence-verify.js';
import { sealRecord } from '../../../shared/ledger/seal.js';
import type { LedgerRecord } from '../../../shared/ledger/record.js';
import { bundleOf, chainOf, EPOCH, historyOf, keyEntry, testKey } from '../../support/evidence-fixtures.js';
import {
  edKey,
  logOf,
  ORIGIN,
  signedCheckpoint,
  treeOf,
  witnessVkey,
} from '../../support/evidence-log-fixtures.js';

/*
 * The verifiable-log checks of evidence bundles (issue 31): inclusion of each record against the bundle's
 * checkpoint, both log signatures against the key histories at the checkpoint's time, the witness policy, and
 * --since (consistency with a checkpoint the auditor kept).
 */

const ledger = testKey();
const ed = edKey();
const witnessA = { name: 'witness.a.example', key: edKey() };
const witnessB = { name: 'witness.b.example', key: edKey() };
const history = historyOf(keyEntry(ledger, EPOCH));
let chain: LedgerRecord[];

beforeAll(async () => {
  chain = await chainOf('firm_t', 7, () => ledger);
});

const verify = (bundle: unknown, policy = {}) => verifyEvidenceBundle(bundle, nodeEvidenceCrypto, policy);
const codes = async (bundle: unknown, policy = {}) =>
  (await verify(bundle, policy)).failures.map((f) => [f.code, f.sequenceNumber]);

describe('evidence bundles with the log (issue 31)', () => {
  it('verifies a good bundle: every record included, both log signatures, the witness policy met', async () => {
    const log = await logOf(chain, chain, { ecdsa: ledger, ed, witnesses: [witnessA, witnessB] });
    const verdict = await verify(bundleOf(chain, history, { log }), {
      witnesses: [witnessVkey(witnessA), witnessVkey(witnessB)],
      witnessesNeeded: 2,
    });
    expect(verdict.failures).toEqual([]);
    expect(verdict.valid).toBe(true);
    expect(verdict.log).toMatchObject({
      origin: ORIGIN('firm_t'),
      size: 7,
      logSignatures: ['ecdsa', 'ed25519'],
      cosignedBy: ['witness.a.example', 'witness.b.example'],
      included: 7,
      uncoveredFromSequence: null,
    });
  });

  it('names the records beyond the checkpoint as uncovered, without failing', async () => {
    const log = await logOf(chain, chain, { size: 5, ecdsa: ledger, ed });
    const verdict = await verify(bundleOf(chain, history, { log }));
    expect(verdict.valid).toBe(true);
    expect(verdict.log).toMatchObject({ size: 5, included: 5, uncoveredFromSequence: 6 });
  });

  it('fails the inclusion of a rewritten record (resealed consistently with the same key)', async () => {
    const log = await logOf(chain, chain, { ecdsa: ledger, ed });
    const rewritten = await sealRecord(
      { ...chain[3]!, documentMetadata: { documentReference: 'SR-forged' } },
      chain[2]!.chainHash,
      ledger.signer,
      ledger.publicKey,
    );
    const records = [...chain.slice(0, 3), rewritten, ...chain.slice(4)];
    const found = await codes(bundleOf(records, history, { log }));
    expect(found).toContainEqual(['NOT_INCLUDED', 4]);
    expect(found).toContainEqual(['BROKEN_LINK', 5]);
    expect(found.filter(([code]) => code === 'NOT_INCLUDED')).toEqual([['NOT_INCLUDED', 4]]);
  });

  it('refuses a checkpoint signed by a key the histories do not hold, or outside its window', async () => {
    const unknown = await logOf(chain, chain, { ecdsa: testKey(), ed });
    expect(await codes(bundleOf(chain, history, { log: unknown }))).toEqual([['CHECKPOINT_KEY', null]]);
    const strangeEd = { ...(await logOf(chain, chain, { ecdsa: ledger, ed: edKey() })) };
    strangeEd.checkpointKeys = (await logOf(chain, chain, { ecdsa: ledger, ed })).checkpointKeys;
    expect(await codes(bundleOf(chain, history, { log: strangeEd }))).toEqual([['CHECKPOINT_KEY', null]]);
    const expired = await logOf(chain, chain, {
      ecdsa: ledger,
      ed,
      edValidFrom: '2026-01-01T00:00:00.000Z',
      edValidUntil: '2026-03-01T00:00:00.000Z',
      signedAt: '2026-06-01T00:00:00.000Z',
    });
    const verdict = await verify(bundleOf(chain, history, { log: expired }));
    expect(verdict.failures.map((f) => f.code)).toEqual(['CHECKPOINT_KEY']);
    expect(verdict.failures[0]!.message).toMatch(/was not valid at 2026-06-01/);
    const revoked = historyOf(keyEntry(ledger, EPOCH, null, '2026-05-01T00:00:00.000Z'));
    const afterRevocation = await logOf(chain, chain, { ecdsa: ledger, ed });
    expect(await codes(bundleOf(chain, revoked, { log: afterRevocation }))).toEqual([
      ['CHECKPOINT_KEY', null],
    ]);
  });

  it('fails a forged log signature', async () => {
    const log = await logOf(chain, chain, { ecdsa: ledger, ed });
    const lines = log.checkpoint.split('\n');
    // Lines: origin, size, root, blank, the 0x02 line, the 0x01 line. Flip one character of the Ed25519 signature.
    const at = 5;
    const line = lines[at]!;
    lines[at] = line.slice(0, -3) + (line.at(-3) === 'A' ? 'B' : 'A') + line.slice(-2);
    const verdict = await verify(bundleOf(chain, history, { log: { ...log, checkpoint: lines.join('\n') } }));
    expect(verdict.failures.map((f) => f.code)).toEqual(['CHECKPOINT_SIGNATURE']);
  });

  it('applies the witness policy: k of the given witnesses', async () => {
    const log = await logOf(chain, chain, { ecdsa: ledger, ed, witnesses: [witnessA] });
    const bundle = bundleOf(chain, history, { log });
    const both = [witnessVkey(witnessA), witnessVkey(witnessB)];
    expect((await verify(bundle, { witnesses: both, witnessesNeeded: 1 })).valid).toBe(true);
    expect(await codes(bundle, { witnesses: both, witnessesNeeded: 2 })).toEqual([['WITNESS_POLICY', null]]);
    expect(await codes(bundle, { witnesses: both })).toEqual([['WITNESS_POLICY', null]]);
    expect(await codes(bundleOf(chain, history), { witnesses: both, witnessesNeeded: 1 })).toEqual([
      ['LOG_MISSING', null],
    ]);
  });

  it('--since: passes when the bundle extends the kept checkpoint, fails on a rewritten history', async () => {
    const { root: oldRoot } = await treeOf(chain.slice(0, 3));
    const kept = signedCheckpoint(ORIGIN('firm_t'), 3, oldRoot, ledger, ed);
    const log = await logOf(chain, chain, { ecdsa: ledger, ed, consistencyFrom: 3 });
    const bundle = bundleOf(chain, history, { log });
    const verdict = await verify(bundle, { since: kept });
    expect(verdict.failures).toEqual([]);
    expect(verdict.log?.since).toMatchObject({ size: 3, consistent: true });

    // The history shown earlier differs at record 2: the current tree does not extend it.
    const other = await chainOf(
      'firm_t',
      3,
      () => ledger,
      (i) => new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
    );
    const forkedRoot = (await treeOf(other)).root;
    const forked = signedCheckpoint(ORIGIN('firm_t'), 3, forkedRoot, ledger, ed);
    const split = await verify(bundle, { since: forked });
    expect(split.failures.map((f) => f.code)).toEqual(['INCONSISTENT_HISTORY']);
    expect(split.failures[0]!.message).toContain(forked);
    expect(split.failures[0]!.message).toContain(log.checkpoint);

    // Same size, other root; and a bundle without the proof from the kept size.
    const sameSize = signedCheckpoint(ORIGIN('firm_t'), 7, forkedRoot, ledger, ed);
    expect(await codes(bundle, { since: sameSize })).toEqual([['INCONSISTENT_HISTORY', null]]);
    const withoutProof = bundleOf(chain, history, { log: await logOf(chain, chain, { ecdsa: ledger, ed }) });
    const unproven = await verify(withoutProof, { since: kept });
    expect(unproven.failures.map((f) => f.code)).toEqual(['CONSISTENCY_UNPROVEN']);
    expect(unproven.failures[0]!.message).toContain('consistencyFrom=3');
  });
});
