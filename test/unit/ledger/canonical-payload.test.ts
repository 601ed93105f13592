import canonicalize from 'canonicalize';
import { canonicalPayload, computeRecordHash, fixedOrderPayload } from '../../../shared/ledger/hashing.js';
import { payloadOf, type RecordPayload } from '../../../shared/ledger/record.js';

/**
 * Property test of the fixed-order payload writer against the generic RFC 8785 canonicaliser: for random
 * payloads (unicode, escapes, surrogates, odd numbers, nested metadata, wrong types, missing fields) the text
 * used for the record hash is exactly canonicalize(payloadOf(record)), or both throw.
 */

// Deterministic PRNG (mulberry32) so a failure reproduces from the printed seed.
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0080',
  'é',
  '€',
  '\u2028',
  '\u2029',
  '中',
  '\ufeff',
  '\ufffd',
  '😀',
  '\ud83d\ude00',
  '\ud800',
  '\udfff',
  '<',
  '>',
  '&',
  "'",
  '\\u0041',
  'rec_',
  'DOC-1',
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  7,
  0.1,
  0.125,
  1e-7,
  1e21,
  1e-27,
  333333333.3333333,
  2 ** 53,
  -(2 ** 53) + 1,
  4.5,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  123456789012345680000,
  NaN,
  Infinity,
  -Infinity,
];

function generator(seed: number) {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const text = (): string => {
    if (chance(0.5)) return `x${Math.floor(random() * 1e6)}`; // plain ASCII, the usual case
    let s = '';
    const n = Math.floor(random() * 6);
    for (let i = 0; i < n; i++) s += pick(PIECES);
    return s;
  };
  const number = (): number =>
    chance(0.5) ? pick(NUMBERS) : (random() - 0.5) * 10 ** Math.floor(random() * 30);
  const json = (depth: number): unknown => {
    const kind = Math.floor(random() * (depth > 2 ? 4 : 6));
    if (kind === 0) return text();
    if (kind === 1) return number();
    if (kind === 2) return pick([null, true, false]);
    if (kind === 3) return chance(0.5) ? Math.floor(random() * 1000) : text();
    if (kind === 4) return Array.from({ length: Math.floor(random() * 4) }, () => json(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(random() * 5); i > 0; i--) object[text()] = json(depth + 1);
    return object;
  };
  const oddValue = (): unknown =>
    pick<() => unknown>([
      () => undefined,
      () => null,
      () => number(),
      () => text(),
      () => true,
      () => [text()],
      () => ({ a: text() }),
      () => new Date(0),
      () => ({ toJSON: () => undefined }),
      () => ({ toJSON: () => 'as json' }),
      () => 10n,
      () => Symbol('s'),
    ])();
  const metadata = (): unknown => {
    if (chance(0.85)) {
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 6); i > 0; i--) object[text()] = json(1);
      return object;
    }
    return oddValue();
  };
  return (): RecordPayload => {
    const record: Record<string, unknown> = {
      id: `rec_${text()}`,
      firmId: text(),
      sequenceNumber: chance(0.7) ? 1 + Math.floor(random() * 1e6) : number(),
      eventType: chance(0.5) ? 'DOCUMENT_SUBMITTED' : text(),
      actorId: text(),
      actorName: text(),
      actorFcaRef: chance(0.5) ? null : text(),
      documentHash: chance(0.5) ? '' : 'ab'.repeat(32),
      documentMetadata: metadata(),
      timestamp: new Date(Math.floor(random() * 4e12)).toISOString(),
      reviewJobId: chance(0.5) ? null : text(),
    };
    // Now and then a field of the wrong type or missing, as a tampered row could hold.
    for (const field of Object.keys(record)) if (chance(0.04)) record[field] = oddValue();
    if (chance(0.05)) delete record[pick(Object.keys(record))];
    if (chance(0.3)) Object.assign(record, { recordHash: text(), pk: 'FIRM#x', extra: { z: text() } });
    return record as unknown as RecordPayload;
  };
}

function outcome(f: () => string | undefined): { text?: string; threw?: true } {
  try {
    return { text: f() };
  } catch {
    return { threw: true };
  }
}

describe('fixed-order canonical payload writer', () => {
  it('matches canonicalize(payloadOf(record)) on 20,000 random payloads, or throws where it throws', () => {
    const seed = 20261122;
    const next = generator(seed);
    let fast = 0;
    let fallback = 0;
    const mismatches: unknown[] = [];
    for (let i = 0; i < 20_000; i++) {
      const record = next();
      const generic = outcome(() => canonicalize(payloadOf(record)));
      const written = outcome(() => canonicalPayload(record));
      const genericFails = generic.threw === true || generic.text === undefined;
      if (genericFails ? written.threw !== true : written.text !== generic.text)
        mismatches.push({ seed, i, generic, written });
      const direct = outcome(() => fixedOrderPayload(record));
      if (direct.text === undefined) fallback += 1;
      else {
        fast += 1;
        if (direct.text !== generic.text) mismatches.push({ seed, i, generic, direct });
      }
    }
    expect(mismatches).toEqual([]);
    // Both paths were exercised: the fixed writer for well-formed payloads, the generic one for the rest.
    expect(fast).toBeGreaterThan(3_000);
    expect(fallback).toBeGreaterThan(1_000);
  });

  it('takes the fixed path for an ordinary record and leaves lone surrogates to the generic path (which rejects them)', () => {
    const record: RecordPayload = {
      id: 'rec_1',
      firmId: 'firm_1',
      sequenceNumber: 3,
      eventType: 'DOCUMENT_SUBMITTED',
      actorId: 'usr_1',
      actorName: 'Zoë "Q" \\ Smith\n',
      actorFcaRef: null,
      documentHash: '',
      documentMetadata: { b: [1.5, -0, 1e21], a: { é: '€', '\r': null } },
      timestamp: '2026-11-21T10:00:00.000Z',
      reviewJobId: 'job_1',
    };
    expect(fixedOrderPayload(record)).toBe(canonicalize(payloadOf(record)));
    expect(fixedOrderPayload({ ...record, actorName: 'a\ud800' })).toBeUndefined();
    expect(() => computeRecordHash({ ...record, actorName: 'a\ud800' })).toThrow();
    expect(fixedOrderPayload({ ...record, actorName: '😀' })).toBeUndefined();
    expect(canonicalPayload({ ...record, actorName: '😀' })).toBe(
      canonicalize(payloadOf({ ...record, actorName: '😀' })),
    );
  });
});
