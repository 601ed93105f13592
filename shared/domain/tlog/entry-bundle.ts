/**
 * C2SP tlog-tiles entry bundles (`tile/entries/<N>[.p/<W>]`): the entries of one level-0 tile, each prefixed with
 * its length as a big-endian uint16. A firm's entry is the 32 bytes of a record's chainHash.
 */

export class EntryBundleFormatError extends Error {
  override name = 'EntryBundleFormatError';
}

export function formatEntryBundle(entries: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(entries.reduce((n, e) => n + 2 + e.length, 0));
  let at = 0;
  for (const entry of entries) {
    if (entry.length > 0xffff) throw new EntryBundleFormatError('an entry is longer than 65,535 bytes');
    out[at] = entry.length >> 8;
    out[at + 1] = entry.length & 0xff;
    out.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return out;
}

export function parseEntryBundle(data: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < data.length) {
    if (at + 2 > data.length) throw new EntryBundleFormatError('truncated entry length');
    const length = ((data[at] as number) << 8) | (data[at + 1] as number);
    if (at + 2 + length > data.length) throw new EntryBundleFormatError('truncated entry');
    entries.push(data.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}
