import * as z from 'zod';

/*
 * Requests and answers of the verifiable log's endpoints (issue 31). The answers are not JSON: checkpoints,
 * proofs, consistency proofs and verifier keys are text/plain in the C2SP formats, tiles are bytes.
 */

/** A tree size: the number of records a tree covers (sequence numbers are stored as 12 digits). */
const TreeSize = z.coerce.number().int().max(999_999_999_999);

export const TilePathParam = z.object({
  path: z.string().min(1).max(200).meta({
    description:
      'The tile path below tile/ (slashes included): <L>/<N>[.p/<W>] for a hash tile of level L, entries/<N>[.p/<W>] for an entry bundle; N in 3-digit groups, all but the last prefixed with x (1234067 is x001/x234/067); W (1..255) the width of a partial tile. As C2SP tlog-tiles lays them out.',
  }),
});

export const RecordProofQuery = z.object({
  treeSize: TreeSize.min(1).optional().meta({
    description:
      "The size of the checkpoint to prove inclusion in: a size the log signed a checkpoint at (404 otherwise) and larger than the record's position (400 otherwise). Default: the latest checkpoint, waiting (up to three CHECKPOINT_INTERVAL_MS) for one that covers the record.",
  }),
});

export const ConsistencyQuery = z
  .object({
    from: TreeSize.min(1, 'from must be at least 1: RFC 6962 defines no proof from the empty tree').meta({
      description:
        'The older tree size, at least 1 (every tree extends the empty tree; there is no proof to give)',
    }),
    to: TreeSize.min(1).optional().meta({
      description:
        "The newer tree size, at most the latest checkpoint's; default the latest checkpoint's size. from = to answers an empty proof.",
    }),
  })
  .refine((q) => q.to === undefined || q.from <= q.to, {
    message: 'from must not exceed to',
    path: ['from'],
  });

/** A text/plain answer (a C2SP signed note, tlog-proof, hash lines or vkeys). */
export const LogText = (description: string) => z.string().meta({ description });

/** A binary answer: a hash tile (W × 32 bytes) or an entry bundle (W entries of 2 + 32 bytes). */
export const LogTileBytes = z.string().meta({
  description:
    'A hash tile (W × 32 bytes: the hashes of tree level 8·L, left to right) or an entry bundle (W entries, each a big-endian uint16 length 32 and a record chainHash)',
  contentMediaType: 'application/octet-stream',
  maxLength: 256 * 34,
});
