/**
 * The cursor of a plain-array list's next items (issue 14): its answer carries `Link: <path?query&cursor=…>;
 * rel="next"` (RFC 8288, a URI reference relative to the request, shared/http/link.ts) while more items follow.
 */
export function nextCursorOf(link: string | null, requestUrl: string): string | null {
  if (!link) return null;
  // Each link-value is `<target>` then `; name=value` parameters; targets hold no `>`.
  for (const match of link.matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '');
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (!relations.includes('next')) continue;
    return new URL(match[1]!, requestUrl).searchParams.get('cursor');
  }
  return null;
}
