import { z } from 'zod';
import {
  DEFAULT_UPLOAD_CONTENT_TYPE,
  FORBIDDEN_FILENAME_CHARS,
  MAX_FILENAME_LENGTH,
  UPLOAD_CONTENT_TYPES,
} from '../domain/review/uploads.js';
import { Timestamp } from './common.js';

export const CreateUploadBody = z
  .strictObject({
    filename: z
      .string()
      .min(1)
      .max(MAX_FILENAME_LENGTH)
      .refine((name) => !FORBIDDEN_FILENAME_CHARS.test(name), {
        message: 'filename must not contain path separators or control characters',
      })
      .meta({
        description:
          'The document\'s file name, 1 to 200 characters without "/", "\\" or control characters. It ends the object key, with characters outside [A-Za-z0-9._-] replaced by "_".',
      }),
    contentType: z.enum(UPLOAD_CONTENT_TYPES).default(DEFAULT_UPLOAD_CONTENT_TYPE).meta({
      description: 'The Content-Type the PUT must carry: PDF (default), Word (.docx, .doc) or plain text',
    }),
  })
  .meta({ id: 'CreateUploadRequest' });

export const Upload = z
  .object({
    uploadUrl: z.url().meta({
      description:
        'Presigned URL: PUT the raw bytes here with exactly this Content-Type, once, before expiresAt',
    }),
    documentKey: z.string().meta({
      description: 'uploads/<firmId>/<uploadId>/<filename>: pass it to POST /v1/review/jobs',
    }),
    expiresAt: Timestamp.meta({ description: 'The URL is refused after this instant (15 minutes)' }),
    maxBytes: z.int().meta({ description: 'Largest accepted document, in bytes (25 MiB)' }),
    contentType: z.enum(UPLOAD_CONTENT_TYPES),
  })
  .meta({ id: 'Upload' });
