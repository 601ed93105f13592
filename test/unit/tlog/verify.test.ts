import { readFileSync } from 'node:fs';
import { emptyRoot } from '../../../shared/domain/tlog/hash.js';
import {
  InvalidProofError,
  rootFromInclusion,
  verifyConsistency,
  verifyInclusion,
} from '../../../shared/domain/tlog/verify.js';

/**
 * The verifier against transparency-dev/merkle's published probes (testdata/inclusion and testdata/consistency
 * at 417fb0c, Apache-2.0, gathered verbatim into vectors/*.json with each probe's file name): happy paths and
 * their mutations (wrong index, size, leaf, root; modified, truncated, extended proofs).
 */

interface InclusionProbe {
  leafIdx: number;
  treeSize: number;
  root: string | null;
  leafHash: string | null;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
  file: string;
}
interface ConsistencyProbe {
  size1: number;
  size2: number;
  root1: string | null;
  root2: string | null;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
  file: string;
}

const load = <T>(name: string): T[] =>
  JSON.parse(readFileSync(new URL(`./vectors/${name}`, import.meta.url), 'utf8'));
const b = (text: string | null) => new Uint8Array(Buffer.from(text ?? '', 'base64'));

describe('transparency-dev/merkle inclusion probes', () => {
  const probes = load<InclusionProbe>('transparency-dev-inclusion.json');
  it.each(probes.map((p) => [p.file, p] as const))('%s', (_file, p) => {
    const ok = verifyInclusion(b(p.leafHash), p.leafIdx, p.treeSize, (p.proof ?? []).map(b), b(p.root));
    expect(ok).toBe(!p.wantErr);
  });
  it('covers both outcomes', () => {
    expect(probes.filter((p) => !p.wantErr).length).toBeGreaterThan(5);
    expect(probes.filter((p) => p.wantErr).length).toBeGreaterThan(50);
  });
});

describe('transparency-dev/merkle consistency probes', () => {
  const probes = load<ConsistencyProbe>('transparency-dev-consistency.json');
  // One deliberate difference: transparency-dev refuses a proof from size 0 as "meaningless"; C2SP tlog-witness
  // defines old size 0 with an empty proof as consistent (the empty tree is a prefix of every tree).
  const fromEmpty = 'testdata/consistency/additional/size1-is-zero-and-size2-is-not-zero.json';
  it.each(probes.map((p) => [p.file, p] as const))('%s', (file, p) => {
    const ok = verifyConsistency(p.size1, p.size2, (p.proof ?? []).map(b), b(p.root1), b(p.root2));
    expect(ok).toBe(file === fromEmpty ? true : !p.wantErr);
  });
  it('a proof from size 0 must be empty and start from the empty root', () => {
    const anyRoot = new Uint8Array(32).fill(7);
    expect(verifyConsistency(0, 5, [], emptyRoot(), anyRoot)).toBe(true);
    expect(verifyConsistency(0, 5, [anyRoot], emptyRoot(), anyRoot)).toBe(false);
    expect(verifyConsistency(0, 5, [], anyRoot, anyRoot)).toBe(false);
    expect(verifyConsistency(0, 0, [], emptyRoot(), emptyRoot())).toBe(true);
    expect(verifyConsistency(5, 4, [], anyRoot, anyRoot)).toBe(false);
  });
});

describe('rootFromInclusion', () => {
  it('throws InvalidProofError on a malformed proof rather than return a root', () => {
    const h = new Uint8Array(32);
    expect(() => rootFromInclusion(h, 3, 3, [])).toThrow(InvalidProofError);
    expect(() => rootFromInclusion(h, 0, 4, [h])).toThrow(InvalidProofError); // too short
    expect(() => rootFromInclusion(h, 0, 2, [h, h])).toThrow(InvalidProofError); // too long
    expect(() => rootFromInclusion(h, 0, 2, [new Uint8Array(31)])).toThrow(InvalidProofError);
    expect(() => rootFromInclusion(new Uint8Array(5), 0, 1, [])).toThrow(InvalidProofError);
    expect(rootFromInclusion(h, 0, 1, [])).toEqual(h);
  });
});
