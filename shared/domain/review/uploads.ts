/** Document types a client may upload for review. */
export const UPLOAD_CONTENT_TYPES = [
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/msword',
  'text/plain',
] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];
export const DEFAULT_UPLOAD_CONTENT_TYPE: UploadContentType = 'application/pdf';

/** Largest document a presigned upload accepts: 25 MiB (suitability reports with scanned annexes). */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** Lifetime of a presigned upload URL: 15 minutes. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

export const MAX_FILENAME_LENGTH = 200;

/** Path separators and control characters (C0, DEL, C1): refused in a filename rather than rewritten. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const FORBIDDEN_FILENAME_CHARS = /[/\\\u0000-\u001f\u007f-\u009f]/;

/**
 * The filename as an object key segment: NFKC-normalised, every character outside [A-Za-z0-9._-] replaced by
 * `_` (runs collapsed), no leading dots (so never `.` or `..`), at most 200 characters; `document` when nothing
 * is left.
 */
export function sanitiseFilename(filename: string): string {
  const safe = filename
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, MAX_FILENAME_LENGTH);
  return /[A-Za-z0-9]/.test(safe) ? safe : 'document';
}

/** `uploads/<firmId>/<uploadId>/<filename>`: namespaced under the firm, ending with the filename. */
export function uploadKey(firmId: string, uploadId: string, filename: string): string {
  return `uploads/${firmId}/${uploadId}/${sanitiseFilename(filename)}`;
}

/** The parts of an upload key (firm, upload id: a ULID, filename), or null when it is not an upload key. */
export function parseUploadKey(
  documentKey: string,
): { firmId: string; uploadId: string; filename: string } | null {
  const match = /^uploads\/([^/]+)\/([0-9A-HJKMNP-TV-Z]{26})\/([^/]+)$/.exec(documentKey);
  return match ? { firmId: match[1]!, uploadId: match[2]!, filename: match[3]! } : null;
}

/** The firm a document key belongs to, or null when it is not an upload key. */
export function uploadKeyFirm(documentKey: string): string | null {
  return parseUploadKey(documentKey)?.firmId ?? null;
}
