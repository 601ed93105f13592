import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsObjectStore } from '../../../shared/adapters/local/fs-object-store.js';
import { ImmutableObjectError } from '../../../shared/ports/object-store.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('FsObjectStore', () => {
  let store: FsObjectStore;
  beforeEach(() => {
    store = new FsObjectStore(mkdtempSync(join(tmpdir(), 'gls-objects-')));
  });

  it('stores and reads objects with their content type', async () => {
    await store.put('uploads', 'firm_1/a/doc.pdf', bytes('%PDF'), 'application/pdf');
    const object = await store.get('uploads', 'firm_1/a/doc.pdf');
    expect(Buffer.from(object!.body).toString()).toBe('%PDF');
    expect(object!.contentType).toBe('application/pdf');
    expect(await store.get('uploads', 'firm_1/missing')).toBeNull();
  });

  it('overwrites and deletes in ordinary buckets', async () => {
    await store.put('uploads', 'k', bytes('one'), 'text/plain');
    await store.put('uploads', 'k', bytes('two'), 'text/plain');
    expect(Buffer.from((await store.get('uploads', 'k'))!.body).toString()).toBe('two');
    await store.delete('uploads', 'k');
    expect(await store.get('uploads', 'k')).toBeNull();
  });

  it('refuses to overwrite or delete in the immutable bucket, but accepts an identical rewrite', async () => {
    await store.put('immutable', 'ledger/f/000000000001.json', bytes('{"a":1}'), 'application/json');
    await expect(
      store.put('immutable', 'ledger/f/000000000001.json', bytes('{"a":1}'), 'application/json'),
    ).resolves.toBeUndefined();
    await expect(
      store.put('immutable', 'ledger/f/000000000001.json', bytes('{"a":2}'), 'application/json'),
    ).rejects.toBeInstanceOf(ImmutableObjectError);
    await expect(store.delete('immutable', 'ledger/f/000000000001.json')).rejects.toBeInstanceOf(
      ImmutableObjectError,
    );
    expect(Buffer.from((await store.get('immutable', 'ledger/f/000000000001.json'))!.body).toString()).toBe(
      '{"a":1}',
    );
  });

  it('keeps exactly one object when concurrent writers race on an immutable key', async () => {
    const writes = Array.from({ length: 10 }, (_, i) =>
      store.put('immutable', 'race.json', bytes(`{"writer":${i}}`), 'application/json').then(
        () => 'ok',
        () => 'refused',
      ),
    );
    const results = await Promise.all(writes);
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
  });

  it('lets concurrent writers of one ordinary key all succeed, leaving one whole object (last writer wins)', async () => {
    const bodies = Array.from({ length: 20 }, (_, i) => `version ${i} `.repeat(200));
    await Promise.all(
      bodies.map((body) => store.put('certificates', 'certificates/f/c.pdf', bytes(body), 'application/pdf')),
    );
    const stored = Buffer.from((await store.get('certificates', 'certificates/f/c.pdf'))!.body).toString();
    expect(bodies).toContain(stored);
    const keys: string[] = [];
    for await (const key of store.list('certificates', 'certificates/')) keys.push(key);
    expect(keys).toEqual(['certificates/f/c.pdf']);
  });

  it('lists keys under a prefix in order', async () => {
    for (const key of [
      'ledger/f/000000000002.json',
      'ledger/f/000000000001.json',
      'ledger/g/000000000001.json',
      'other.json',
    ]) {
      await store.put('immutable', key, bytes('{}'), 'application/json');
    }
    const keys: string[] = [];
    for await (const key of store.list('immutable', 'ledger/f/')) keys.push(key);
    expect(keys).toEqual(['ledger/f/000000000001.json', 'ledger/f/000000000002.json']);
  });

  it('rejects keys that would escape the store', async () => {
    await expect(store.put('uploads', '../escape', bytes('x'), 'text/plain')).rejects.toThrow(
      /Invalid object key/,
    );
    await expect(store.get('uploads', 'a/../../b')).rejects.toThrow(/Invalid object key/);
  });
});
