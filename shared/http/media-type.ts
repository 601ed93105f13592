/**
 * True when a Content-Type names JSON: `application/json` or any `<type>/<subtype>+json` (RFC 6839), with or
 * without parameters (`; charset=utf-8`), in any case. A missing or empty Content-Type is not JSON.
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const essence = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (essence === 'application/json') return true;
  const match = /^([!#$%&'*+.^_`|~0-9a-z-]+)\/([!#$%&'*+.^_`|~0-9a-z-]+)$/.exec(essence);
  return match !== null && match[2]!.endsWith('+json') && match[2]!.length > '+json'.length;
}
