import { execFile } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';
import { MAX_BUNDLE_RECORD_BYTES, type EvidenceBundle } from '../../shared/ledger/evidence-bundle.js';
import type { EvidenceVerdict } from '../../shared/ledger/evidence-verify.js';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import { issueCertificate } from '../../shared/services/certificate-issue.js';
import { signedMessage } from '../../shared/ledger/hashing.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { bundleOf, chainOf, EPOCH, historyOf, keyEntry, testKey } from '../support/evidence-fixtures.js';
import {
  edKey,
  logOf,
  ORIGIN,
  signedCheckpoint,
  treeOf,
  witnessVkey,
} from '../support/evidence-log-fixtures.js';
import { ROOT } from '../support/local-stack.js';
import { api, createFirm, stack, stackDeps, tokenFor, type TestFirm } from './helpers.js';

/** Issue 15, parts 5-6: GET /v1/ledger/export, the CLI and the offline page on real exported bundles. */

async function append(firm: TestFirm, n: number): Promise<LedgerRecord[]> {
  const deps = stackDeps();
  const records: LedgerRecord[] = [];
  for (let i = 0; i < n; i += 1)
    records.push(
      await appendRecord(deps, {
        firmId: firm.firmId,
        eventType: 'DOCUMENT_SUBMITTED',
        actor: { id: 'usr_submitter', name: 'Sam Submitter', fcaRef: 'SAM01234' },
        documentHash: 'd'.repeat(64),
        documentMetadata: { documentReference: `DOC-${i}`, note: 'naïve ✓' },
      }),
    );
  return records;
}

const exportOf = async (firm: TestFirm, query = ''): Promise<EvidenceBundle> => {
  const { status, body } = await api<EvidenceBundle>('GET', `/v1/ledger/export${query}`, { key: firm.key });
  expect(status).toBe(200);
  return body;
};

const dir = mkdtempSync(join(tmpdir(), 'gls-evidence-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function fileOf(content: unknown): string {
  files += 1;
  const path = join(dir, `bundle-${files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/**
 * `npm run --silent verify-evidence -- [options] <file>`, exactly as documented: its exit code and its one JSON
 * verdict.
 */
function cli(
  path: string,
  options: string[] = [],
): Promise<{ code: number; verdict: EvidenceVerdict & { error?: string } }> {
  return new Promise((done) => {
    execFile(
      'npm',
      ['run', '--silent', 'verify-evidence', '--', ...options, path],
      { cwd: ROOT },
      (error, stdout) => {
        done({ code: error ? Number(error.code) : 0, verdict: JSON.parse(stdout) });
      },
    );
  });
}

const failures = (verdict: EvidenceVerdict) =>
  verdict.failures.map((f) => [f.code, f.reason, f.sequenceNumber] as const);

let firm: TestFirm;
let other: TestFirm;
let records: LedgerRecord[];
let whole: EvidenceBundle;

beforeAll(async () => {
  [firm, other] = await Promise.all([createFirm(), createFirm()]);
  records = await append(firm, 7);
  await append(other, 3);
  whole = await exportOf(firm);
});

describe('GET /v1/ledger/export', () => {
  it("returns the firm's chain with the key history, and only the firm's records", async () => {
    expect(whole).toEqual({
      format: 'gls-evidence-bundle',
      version: 1,
      firmId: firm.firmId,
      range: { fromSequence: 1, toSequence: null },
      headSequenceNumber: 7,
      nextFromSequence: null,
      predecessor: null,
      records,
      keyHistory: { version: 1, keys: [expect.objectContaining({ validUntil: null, revokedFrom: null })] },
      generatedAt: expect.any(String),
      // The verifiable log (issue 31): null while the firm's log has no checkpoint (test/integration/evidence-log-http.test.ts)
      log:
        whole.log === null
          ? null
          : expect.objectContaining({ origin: expect.stringMatching(new RegExp(`/ledger/${firm.firmId}$`)) }),
    });
    const published = await api('GET', '/.well-known/signing-key');
    expect(whole.keyHistory.keys[0]).toMatchObject({
      publicKey: published.body.publicKey,
      fingerprint: published.body.fingerprint,
    });
    const theirs = await exportOf(other);
    expect(theirs.records.map((r) => [r.firmId, r.sequenceNumber])).toEqual([
      [other.firmId, 1],
      [other.firmId, 2],
      [other.firmId, 3],
    ]);
    expect(JSON.stringify(theirs)).not.toContain(firm.firmId);
  });

  it('answers a range with the record before it, and a range past the head with what exists', async () => {
    const middle = await exportOf(firm, '?fromSequence=3&toSequence=5');
    expect(middle.records.map((r) => r.sequenceNumber)).toEqual([3, 4, 5]);
    expect(middle.predecessor).toEqual(records[1]);
    expect(middle.range).toEqual({ fromSequence: 3, toSequence: 5 });
    expect(middle.nextFromSequence).toBeNull();
    const past = await exportOf(firm, '?fromSequence=6&toSequence=50');
    expect(past.records.map((r) => r.sequenceNumber)).toEqual([6, 7]);
    expect(past.nextFromSequence).toBeNull();
    const beyond = await exportOf(firm, '?fromSequence=20');
    expect([beyond.records, beyond.predecessor, beyond.nextFromSequence]).toEqual([[], null, null]);
    expect(await cli(fileOf(beyond))).toMatchObject({ code: 0 }); // nothing to check is not a failure
  });

  it('bounds a bundle with limit and hands back a cursor until the range is done', async () => {
    const seen: number[] = [];
    let from: number | null = 1;
    const cursors: (number | null)[] = [];
    while (from !== null) {
      const page: EvidenceBundle = await exportOf(firm, `?fromSequence=${from}&limit=3`);
      seen.push(...page.records.map((r) => r.sequenceNumber));
      cursors.push(page.nextFromSequence);
      from = page.nextFromSequence;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(cursors).toEqual([4, 7, null]);
    const bounded = await exportOf(firm, '?fromSequence=2&toSequence=6&limit=2');
    expect([bounded.records.length, bounded.nextFromSequence]).toEqual([2, 4]);
    expect(await cli(fileOf(bounded))).toMatchObject({ code: 0 }); // a failure shows the verdict
  });

  it('stops at 4 MiB of record JSON and hands back a cursor there', async () => {
    const big = await createFirm();
    const deps = stackDeps();
    for (let i = 0; i < 12; i += 1)
      await appendRecord(deps, {
        firmId: big.firmId,
        eventType: 'DOCUMENT_SUBMITTED',
        actor: { id: 'usr_submitter', name: 'Sam Submitter', fcaRef: null },
        documentHash: 'd'.repeat(64),
        documentMetadata: { documentReference: `BIG-${i}`, pages: 'x'.repeat(360_000) },
      });
    const first = await exportOf(big);
    const sizes = first.records.map((r) => Buffer.byteLength(JSON.stringify(r)));
    const total = sizes.reduce((a, b) => a + b, 0);
    // 11 records fit the budget, a 12th would not: the bundle ends at 11 and the cursor points at 12.
    expect(first.records.map((r) => r.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(total).toBeLessThanOrEqual(MAX_BUNDLE_RECORD_BYTES);
    expect(total + sizes[0]!).toBeGreaterThan(MAX_BUNDLE_RECORD_BYTES);
    expect(first.nextFromSequence).toBe(12);
    const rest = await exportOf(big, `?fromSequence=${first.nextFromSequence}`);
    expect([rest.records.map((r) => r.sequenceNumber), rest.nextFromSequence]).toEqual([[12], null]);
    expect(await cli(fileOf(first))).toMatchObject({ code: 0 }); // a failure shows the verdict
  });

  it.each([
    ['limit above 1,000', '?limit=1001', 'limit'],
    ['limit 0', '?limit=0', 'limit'],
    ['fromSequence 0', '?fromSequence=0', 'fromSequence'],
    ['a non-number', '?fromSequence=abc', 'fromSequence'],
    ['a fraction', '?toSequence=2.5', 'toSequence'],
    ['fromSequence after toSequence', '?fromSequence=5&toSequence=4', 'fromSequence'],
  ])('answers 400 in the envelope for %s', async (_name, query, path) => {
    const { status, body } = await api('GET', `/v1/ledger/export${query}`, { key: firm.key });
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details.map((d: { path: string }) => d.path)).toContain(`query.${path}`);
  });

  it('needs a credential of the firm: 401 without one, a signed-in user works as well as a key', async () => {
    expect((await api('GET', '/v1/ledger/export')).status).toBe(401);
    const token = await tokenFor(firm.firmId, firm.admin.email);
    const { status, body } = await api<EvidenceBundle>('GET', '/v1/ledger/export?toSequence=2', { token });
    expect(status).toBe(200);
    expect(body.records.map((r) => r.id)).toEqual([records[0]!.id, records[1]!.id]);
  });
});

describe('GET /v1/ledger/records/{id}/evidence', () => {
  it("answers one record's bundle with its certificate, which the CLI checks names the record", async () => {
    const record = records[2]!;
    const issued = await issueCertificate(
      stackDeps(),
      { firmId: firm.firmId, sequenceNumber: 3, recordId: record.id, eventType: record.eventType },
      stack.baseUrl,
    );
    const { status, body } = await api<EvidenceBundle>('GET', `/v1/ledger/records/${record.id}/evidence`, {
      key: firm.key,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      range: { fromSequence: 3, toSequence: 3 },
      predecessor: records[1],
      records: [record],
      nextFromSequence: null,
      certificate: {
        id: issued.id,
        ledgerRecordId: record.id,
        firmId: firm.firmId,
        sequenceNumber: 3,
        recordHash: record.recordHash,
        chainHash: record.chainHash,
        verificationUrl: issued.verificationUrl,
      },
    });
    const good = await cli(fileOf(body));
    expect([good.code, good.verdict.valid, good.verdict.covered, failures(good.verdict)]).toEqual([
      0,
      true,
      { fromSequence: 3, toSequence: 3 },
      [],
    ]);
    const moved = await cli(
      fileOf({ ...body, certificate: { ...body.certificate!, recordHash: 'e'.repeat(64) } }),
    );
    expect([moved.code, failures(moved.verdict)]).toEqual([1, [['CERTIFICATE_MISMATCH', 'certificate', 3]]]);

    const plain = await api<EvidenceBundle>('GET', `/v1/ledger/records/${records[0]!.id}/evidence`, {
      key: firm.key,
    });
    expect([plain.status, plain.body.certificate, plain.body.predecessor]).toEqual([200, null, null]);
    expect(await cli(fileOf(plain.body))).toMatchObject({ code: 0 }); // a failure shows the verdict
  });

  it("is 404 for an unknown id and for another firm's record", async () => {
    const unknown = await api('GET', '/v1/ledger/records/rec_unknown/evidence', { key: firm.key });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const theirs = await api('GET', `/v1/ledger/records/${records[0]!.id}/evidence`, { key: other.key });
    expect(theirs.status).toBe(404);
  });
});

describe('npm run verify-evidence (the CLI)', () => {
  it('verifies a real exported bundle: exit 0 and one JSON verdict', async () => {
    const { code, verdict } = await cli(fileOf(whole));
    expect(code).toBe(0);
    expect(verdict).toMatchObject({
      valid: true,
      firmId: firm.firmId,
      covered: { fromSequence: 1, toSequence: 7 },
      recordsChecked: 7,
      failures: [],
    });
    expect(verdict.keys[0]!.fingerprint).toBe(whole.keyHistory.keys[0]!.fingerprint);
    const anchored = await cli(fileOf(await exportOf(firm, '?fromSequence=4')));
    expect([anchored.code, anchored.verdict.predecessor?.valid, failures(anchored.verdict)]).toEqual([
      0,
      true,
      [],
    ]);
  });

  it('catches a changed payload, a removed record and a forged signature (exit 1, with the reasons)', async () => {
    const changed = structuredClone(whole);
    changed.records[2]!.documentMetadata.documentReference = 'DOC-FORGED';
    const removed = structuredClone(whole);
    removed.records.splice(3, 1);
    const forged = structuredClone(whole);
    forged.records[5]!.signature = sign(
      'sha256',
      signedMessage(forged.records[5]!.chainHash),
      testKey().privateKey,
    ).toString('base64');
    const results = await Promise.all([changed, removed, forged].map((b) => cli(fileOf(b))));
    expect(results.map((r) => [r.code, failures(r.verdict)])).toEqual([
      [1, [['RECORD_HASH_MISMATCH', 'hash', 3]]],
      [1, [['MISSING_RECORD', 'missingRecord', 4]]],
      [1, [['BAD_SIGNATURE', 'signature', 6]]],
    ]);
    expect(results[1]!.verdict.failures[0]!.message).toBe('record 4 is missing from the bundle');
    expect(results[0]!.verdict.records.map((r) => r.valid)).toEqual([
      true,
      true,
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  it('catches a key outside its window, a revoked key, and a record forged with a retired key', async () => {
    const t = (i: number) => records[i - 1]!.timestamp;
    const [serviceKey] = whole.keyHistory.keys as [EvidenceBundle['keyHistory']['keys'][number]];
    // The records' keys alone. The bundle's checkpoint (if the firm's log had signed one before the export) was
    // signed at whatever instant the log got to it, and would be judged against these histories too, before or
    // after t(3), t(5) or t(6) by chance; the checkpoint's key is checked in test/unit/ledger/evidence-log-verify.test.ts.
    const bare = { ...whole, log: null };
    const retiredEarly = {
      ...bare,
      keyHistory: { version: 2, keys: [{ ...serviceKey, validUntil: t(6) }] },
    };
    const revoked = { ...bare, keyHistory: { version: 2, keys: [{ ...serviceKey, revokedFrom: t(5) }] } };
    // A rotation: an older key, retired when the service's key took over at record 3; whoever still holds the
    // old key forges record 5 with it. Its signature is good, its key was not valid then.
    const old = testKey();
    const rotated = {
      version: 2,
      keys: [
        keyEntry(old, '2020-01-01T00:00:00.000Z', t(3)),
        keyEntry({ ...old, publicKey: serviceKey.publicKey }, t(3), null, null, old), // endorsed by the old key
      ],
    };
    const forgedRecords = bare.records.map((r) => ({ ...r }));
    forgedRecords[4] = {
      ...forgedRecords[4]!,
      publicKey: old.publicKey,
      signature: sign('sha256', signedMessage(forgedRecords[4]!.chainHash), old.privateKey).toString(
        'base64',
      ),
    };
    const forgedAfterRetirement = { ...bare, keyHistory: rotated, records: forgedRecords };
    const results = await Promise.all(
      [retiredEarly, revoked, { ...bare, keyHistory: rotated }, forgedAfterRetirement].map((b) =>
        cli(fileOf(b)),
      ),
    );
    // Records appended in the same millisecond share a timestamp: the expected sets follow the timestamps.
    const stamped = (keep: (at: number) => boolean) =>
      records.filter((r) => keep(Date.parse(r.timestamp))).map((r) => r.sequenceNumber);
    const at = (i: number) => Date.parse(t(i));
    const each = (code: string, reason: string, sequences: number[]) =>
      sequences.map((s) => [code, reason, s]);
    expect(results.map((r) => [r.code, failures(r.verdict)])).toEqual([
      [
        1,
        each(
          'KEY_NOT_VALID_AT_TIMESTAMP',
          'keyWindow',
          stamped((x) => x >= at(6)),
        ),
      ],
      [
        1,
        each(
          'KEY_REVOKED',
          'revokedKey',
          stamped((x) => x >= at(5)),
        ),
      ],
      [
        1,
        each(
          'KEY_NOT_VALID_AT_TIMESTAMP',
          'keyWindow',
          stamped((x) => x < at(3)),
        ),
      ],
      [1, each('KEY_NOT_VALID_AT_TIMESTAMP', 'keyWindow', [...stamped((x) => x < at(3)), 5])],
    ]);
    expect(stamped((x) => x >= at(6))).toContain(7);
  });

  it('answers 2 for input it cannot read, and 1 with MALFORMED_BUNDLE for JSON that is no bundle', async () => {
    const unreadable = await cli(fileOf('{"format": "gls-evidence-bundle", '));
    expect([unreadable.code, unreadable.verdict.valid, unreadable.verdict.error]).toEqual([
      2,
      false,
      'UNREADABLE_INPUT',
    ]);
    expect((await cli(join(dir, 'no-such-file.json'))).code).toBe(2);
    const malformed = await cli(fileOf({ records: [] }));
    expect([malformed.code, malformed.verdict.failures[0]!.code]).toEqual([1, 'MALFORMED_BUNDLE']);
  });
});

describe('the offline page (/verify/offline, docs/evidence-verifier.html) in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('is served without a credential, with a CSP allowing only its own script and style', async () => {
    const response = await fetch(`${stack.baseUrl}/verify/offline`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; style-src 'sha256-/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect((await fetch(`${stack.baseUrl}/verify/offline`, { method: 'HEAD' })).status).toBe(200);
  });

  it.each([
    ['served', () => `${stack.baseUrl}/verify/offline`],
    ['opened from the repository', () => pathToFileURL(join(ROOT, 'docs/evidence-verifier.html')).href],
  ])('accepts a good bundle and names what is wrong with a tampered one (%s)', async (_name, url) => {
    const page = await browser.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    try {
      await page.goto(url());
      await page.waitForSelector('body[data-ready="true"]');
      const input = page.getByLabel('Evidence bundle (JSON file)');
      const choose = async (bundle: unknown) => {
        await input.setInputFiles({
          name: 'bundle.json',
          mimeType: 'application/json',
          buffer: Buffer.from(JSON.stringify(bundle)),
        });
        return page.waitForSelector('#verdict[data-valid]:not(:has(h2:text("Checking")))');
      };
      await choose(whole);
      expect(await page.getAttribute('#verdict', 'data-valid')).toBe('true');
      expect(await page.locator('#verdict h2').innerText()).toBe('Evidence verified');
      const pageVerdict = JSON.parse(
        (await page.locator('#verdict-json').textContent()) ?? '',
      ) as EvidenceVerdict;
      expect(pageVerdict).toEqual((await cli(fileOf(whole))).verdict); // the same verdict as the CLI

      const tampered = structuredClone(whole);
      tampered.records[1]!.actorName = 'Someone Else';
      tampered.records.splice(4, 1);
      await choose(tampered);
      expect(await page.getAttribute('#verdict', 'data-valid')).toBe('false');
      expect(
        await page.locator('#failures li').evaluateAll((items) => items.map((i) => i.textContent)),
      ).toEqual([
        expect.stringContaining('RECORD_HASH_MISMATCH (hash) record 2'),
        expect.stringContaining('MISSING_RECORD (missingRecord) record 5'),
      ]);
      const shown = JSON.parse((await page.locator('#verdict-json').textContent()) ?? '') as EvidenceVerdict;
      expect(shown).toEqual((await cli(fileOf(tampered))).verdict);

      // Dropping a file onto the page works as choosing it.
      await page.evaluate(`(() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([${JSON.stringify(JSON.stringify(whole))}], 'dropped.json'));
        document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      })()`);
      await page.waitForSelector('#verdict[data-valid="true"]');
      expect(requests).toEqual([url()]); // the page itself, nothing else
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('checks a witness policy and a kept checkpoint as the CLI does (--witness, --witnesses-needed, --since)', async () => {
    // A bundle whose checkpoint one witness cosigned, with the consistency proof from size 3 (signed with test
    // keys that the bundle's key histories carry: the page, like the CLI, needs nothing else).
    const ledger = testKey();
    const ed = edKey();
    const witnessA = { name: 'witness.a.example', key: edKey() };
    const witnessB = { name: 'witness.b.example', key: edKey() };
    const chain = await chainOf('firm_page', 6, () => ledger);
    const log = await logOf(chain, chain, { ecdsa: ledger, ed, witnesses: [witnessA], consistencyFrom: 3 });
    const bundle = bundleOf(chain, historyOf(keyEntry(ledger, EPOCH)), { log });
    const bundlePath = fileOf(bundle);
    const vkeys = [witnessVkey(witnessA), witnessVkey(witnessB)];
    // A checkpoint of size 3 of another history, as a split view would have shown the auditor earlier.
    const other = await chainOf(
      'firm_page',
      3,
      () => ledger,
      (i) => new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
    );
    const forked = signedCheckpoint(ORIGIN('firm_page'), 3, (await treeOf(other)).root, ledger, ed);
    const forkedPath = join(dir, 'kept-checkpoint.txt');
    writeFileSync(forkedPath, forked);

    const page = await browser.newPage();
    try {
      await page.goto(`${stack.baseUrl}/verify/offline`);
      await page.waitForSelector('body[data-ready="true"]');
      const check = async (policy: { vkeys: string; needed: string; kept: string }) => {
        await page.fill('#witness-vkeys', policy.vkeys);
        await page.fill('#witnesses-needed', policy.needed);
        await page.fill('#kept-checkpoint', policy.kept);
        await page.getByLabel('Evidence bundle (JSON file)').setInputFiles({
          name: 'bundle.json',
          mimeType: 'application/json',
          buffer: Buffer.from(JSON.stringify(bundle)),
        });
        await page.waitForSelector('#verdict[data-valid]:not(:has(h2:text("Checking")))');
        return {
          valid: await page.getAttribute('#verdict', 'data-valid'),
          title: await page.locator('#verdict h2').innerText(),
          summary: await page.locator('#verdict p').innerText(),
          verdict: (await page.locator('#verdict-json').count())
            ? (JSON.parse((await page.locator('#verdict-json').textContent()) ?? '') as EvidenceVerdict)
            : null,
        };
      };

      // Met: one of the two witnesses is needed, and A cosigned.
      const met = await check({ vkeys: vkeys.join('\n'), needed: '1', kept: '' });
      expect([met.valid, met.title]).toEqual(['true', 'Evidence verified']);
      expect(met.summary).toContain(
        `Included in ${ORIGIN('firm_page')} at size 6 (6 record(s) proved), cosigned by witness.a.example.`,
      );
      const metCli = await cli(bundlePath, [
        '--witness',
        vkeys[0]!,
        '--witness',
        vkeys[1]!,
        '--witnesses-needed',
        '1',
      ]);
      expect([metCli.code, met.verdict]).toEqual([0, metCli.verdict]); // the same verdict as the CLI

      // Not met: both are needed (empty: all of them), B never cosigned.
      const unmet = await check({ vkeys: vkeys.join('\n'), needed: '', kept: '' });
      expect(unmet.valid).toBe('false');
      expect(unmet.verdict!.failures.map((f) => f.code)).toEqual(['WITNESS_POLICY']);
      const unmetCli = await cli(bundlePath, ['--witness', vkeys[0]!, '--witness', vkeys[1]!]);
      expect([unmetCli.code, unmet.verdict]).toEqual([1, unmetCli.verdict]);

      // A kept checkpoint the bundle's does not extend: a split view, both notes shown.
      const split = await check({ vkeys: vkeys[0]!, needed: '1', kept: forked });
      expect(split.valid).toBe('false');
      expect(split.verdict!.failures.map((f) => f.code)).toEqual(['INCONSISTENT_HISTORY']);
      expect(await page.locator('#failures li').innerText()).toContain('INCONSISTENT_HISTORY (consistency)');
      const splitCli = await cli(bundlePath, [
        '--witness',
        vkeys[0]!,
        '--witnesses-needed',
        '1',
        '--since',
        forkedPath,
      ]);
      expect([splitCli.code, split.verdict]).toEqual([1, splitCli.verdict]);

      // A policy that cannot be used is said so, as the CLI refuses it.
      const bad = await check({ vkeys: 'not a vkey', needed: '', kept: '' });
      expect([bad.valid, bad.title]).toEqual(['false', 'The witness policy cannot be used']);
      expect(bad.summary).toContain('witness not a vkey:');
    } finally {
      await page.close();
    }
  });
});
