/** Reading a completed upload for submission: its size checked before any byte is read, its hash streamed. */
import { createHash } from 'node:crypto';
import { DocumentNotFoundError, PayloadTooLargeError, UnprocessableError } from '../../errors.js';
import type { StoredObject } from '../../ports/object-store.js';
import type { Deps } from '../../runtime/deps.js';
import { logger } from '../../runtime/logger.js';

export interface ReadUpload extends StoredObject {
  /** sha256 hex of the bytes, computed chunk by chunk as they arrive. */
  sha256: string;
}

const tooLarge = (maxBytes: number) => new PayloadTooLargeError(`The document exceeds ${maxBytes} bytes`);

/**
 * The upload's bytes and their hash. The size is checked first, without reading (HeadObject in AWS, where a
 * presigned PUT cannot limit it): over maxBytes is 413 before a byte is transferred. The body is then hashed
 * as it streams and the read stops as soon as it passes maxBytes (should the object have grown since), so at
 * most maxBytes are ever held, for the immutable copy. 404 DOCUMENT_NOT_FOUND when absent; 422 when storage
 * fails.
 */
export async function readUpload(deps: Deps, key: string, maxBytes: number): Promise<ReadUpload> {
  const notFound = () => new DocumentNotFoundError('documentKey does not name an uploaded document');
  const failed = (error: unknown) => {
    logger.warn('Reading an upload failed', { documentKey: key, error: error as Error });
    return new UnprocessableError('The document could not be read from storage; retry');
  };
  let info;
  try {
    info = await deps.objects.head('uploads', key);
  } catch (error) {
    throw failed(error);
  }
  if (!info) throw notFound();
  if (info.size > maxBytes) throw tooLarge(maxBytes);

  const hash = createHash('sha256');
  const chunks: Uint8Array[] = [];
  let size = 0;
  let object;
  try {
    object = await deps.objects.stream('uploads', key);
    if (!object) throw notFound();
    for await (const chunk of object.body) {
      size += chunk.byteLength;
      if (size > maxBytes) {
        (object.body as { destroy?: () => void }).destroy?.();
        throw tooLarge(maxBytes);
      }
      hash.update(chunk);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof DocumentNotFoundError || error instanceof PayloadTooLargeError) throw error;
    throw failed(error);
  }
  return {
    body: new Uint8Array(Buffer.concat(chunks, size)),
    contentType: object.contentType,
    sha256: hash.digest('hex'),
  };
}
