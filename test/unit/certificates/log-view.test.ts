import { encodeHex } from '../../../shared/domain/tlog/encoding.js';
import { cosignatureKeyId } from '../../../shared/domain/tlog/note.js';
import { certificateLogView, logStatement } from '../../../shared/domain/certificates/log-view.js';
import { checkEvidenceLog } from '../../../shared/ledger/evidence-log-verify.js';
import type { LedgerRecord } from '../../../shared/ledger/record.js';
import { chainOf, EPOCH, historyOf, keyEntry, testKey } from '../../support/evidence-fixtures.js';
import { edKey, logOf, ORIGIN, witnessVkey } from '../../support/evidence-log-fixtures.js';

/*
 * What the public certificate check says of the verifiable log (issue 31): the view is built from the evidence
 * verifier's own log check over a real tree and real signatures, so "verified" means a proof that verified.
 */

const ledger = testKey();
const ed = edKey();
const witnessA = { name: 'witness.a.example', key: edKey() };
const witnessB = { name: 'witness.b.example', key: edKey() };
const history = historyOf(keyEntry(ledger, EPOCH));
const known = [witnessA, witnessB].map((w) => ({
  name: w.name,
  keyId: encodeHex(cosignatureKeyId(w.name, w.key.publicKey)),
  vkey: witnessVkey(w),
}));
let chain: LedgerRecord[];

beforeAll(async () => {
  chain = await chainOf('firm_t', 6, () => ledger);
});

async function viewOf(
  record: LedgerRecord | null,
  log: Awaited<ReturnType<typeof logOf>> | null,
  off = false,
) {
  const check =
    log &&
    (await checkEvidenceLog(
      log,
      { firmId: 'firm_t', records: record ? [record] : [], keyHistory: history },
      { witnesses: known.map((w) => w.vkey), witnessesNeeded: 0 },
    ));
  return certificateLogView({
    leafIndex: (record?.sequenceNumber ?? 3) - 1,
    checkpointsOff: off,
    log,
    check,
    witnesses: known,
  });
}

describe('the verifiable log on the certificate check', () => {
  it('says included at size N, both log signatures, and which known witnesses cosigned when', async () => {
    const record = chain[2]!;
    const log = await logOf(chain, [record], { ecdsa: ledger, ed, witnesses: [witnessB] });
    const { view, problems } = await viewOf(record, log);
    expect(problems).toEqual([]);
    const stamp = new Date(1_780_000_000 * 1000).toISOString();
    expect(view).toEqual({
      inclusion: 'verified',
      origin: ORIGIN('firm_t'),
      leafIndex: 2,
      treeSize: 6,
      checkpoint: log.checkpoint,
      signedAt: log.signedAt,
      logSignatures: ['ecdsa', 'ed25519'],
      cosignedBy: [{ name: witnessB.name, keyId: known[1]!.keyId, timestamp: stamp }],
      statement: `Included in ${ORIGIN('firm_t')} at size 6 (leaf 2), signed by the log's ledger key (ECDSA P-256) and checkpoint key (Ed25519), cosigned by witness.b.example at ${stamp}.`,
    });
  });

  it('names no witness whose key the service does not know, and says when none cosigned', async () => {
    const stranger = { name: 'stranger.example', key: edKey() };
    const log = await logOf(chain, [chain[0]!], { ecdsa: ledger, ed, witnesses: [stranger] });
    const { view } = await viewOf(chain[0]!, log);
    expect(view.cosignedBy).toEqual([]);
    expect(view.statement).toContain('not cosigned by any witness');
  });

  it('fails, with the reason, when the record is not the leaf the checkpoint committed to', async () => {
    const record = chain[3]!;
    const log = await logOf(chain, [record], { ecdsa: ledger, ed });
    const rewritten = { ...record, chainHash: 'ab'.repeat(32) };
    const { view, problems } = await viewOf(rewritten, log);
    expect(view.inclusion).toBe('failed');
    expect(view.treeSize).toBe(6);
    expect(view.statement).toBe(
      `NOT included in ${ORIGIN('firm_t')} at size 6: the record's inclusion proof (leaf 3) does not verify against the checkpoint.`,
    );
    expect(problems.join(' ')).toContain("is not leaf 3 of the checkpoint's tree (size 6)");
  });

  it('fails when a log signature is by a key the histories do not hold', async () => {
    const log = await logOf(chain, [chain[1]!], { ecdsa: testKey(), ed });
    const { view, problems } = await viewOf(chain[1]!, log);
    expect(view.logSignatures).toEqual(['ed25519']);
    expect(problems.join(' ')).toContain('0x02 ECDSA');
  });

  it('says "not yet in a checkpoint" for a record after the latest checkpoint, and no checkpoint when off', async () => {
    const record = chain[5]!;
    const older = await logOf(chain, [record], { size: 4, ecdsa: ledger, ed });
    const pending = await viewOf(record, older);
    expect(pending.problems).toEqual([]);
    expect(pending.view).toMatchObject({ inclusion: 'pending', origin: ORIGIN('firm_t'), treeSize: null });
    expect(pending.view.statement).toMatch(/^Not yet in a checkpoint: the record \(leaf 5\)/);
    const none = await viewOf(record, null);
    expect(none.view).toMatchObject({ inclusion: 'pending', origin: null, checkpoint: null });
    const off = await viewOf(record, null, true);
    expect(off.view.inclusion).toBe('no-checkpoint');
    expect(off.view.statement).toBe(
      "The firm's verifiable log has no checkpoint that covers this record: checkpoints are off on this service.",
    );
  });

  it('renders every state as one sentence', () => {
    const base = {
      origin: 'h/ledger/f',
      leafIndex: 0,
      treeSize: 1,
      checkpoint: null,
      signedAt: null,
      logSignatures: [],
      cosignedBy: [],
    };
    expect(logStatement({ ...base, inclusion: 'verified' })).toBe(
      'Included in h/ledger/f at size 1 (leaf 0), with no log signature that verifies, not cosigned by any witness.',
    );
  });
});
