import { includesReview } from '../domain/firm/plans.js';
import { ulid } from 'ulid';
import type { Principal } from '../domain/auth/principal.js';
import {
  MAX_UPLOAD_BYTES,
  UPLOAD_URL_TTL_SECONDS,
  uploadKey,
  type UploadContentType,
} from '../domain/review/uploads.js';
import { ForbiddenError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import { loadFirm } from './firm.js';

export interface Upload {
  uploadUrl: string;
  uploadHeaders: Record<string, string>;
  documentKey: string;
  expiresAt: string;
  maxBytes: number;
  contentType: UploadContentType;
}

/**
 * The upload step: a presigned, single-use (If-None-Match: * advised; enforced locally), 15-minute PUT URL for one document in the uploads bucket, under a
 * key namespaced by the caller's firm. The service never receives the bytes.
 */
export async function createUpload(
  deps: Deps,
  principal: Principal,
  input: { filename: string; contentType: UploadContentType },
): Promise<Upload> {
  const firm = await loadFirm(deps, principal.firmId);
  if (!includesReview(firm.plan))
    throw new ForbiddenError(`The firm's plan (${firm.plan}) does not include review services`);
  const documentKey = uploadKey(firm.id, ulid(), input.filename);
  const { url, expiresAt, headers } = await deps.objects.presignPut('uploads', documentKey, {
    contentType: input.contentType,
    expiresInSeconds: UPLOAD_URL_TTL_SECONDS,
    maxBytes: MAX_UPLOAD_BYTES,
  });
  return {
    uploadUrl: url,
    uploadHeaders: headers,
    documentKey,
    expiresAt,
    maxBytes: MAX_UPLOAD_BYTES,
    contentType: input.contentType,
  };
}
