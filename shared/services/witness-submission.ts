import {
  addCheckpointBody,
  classifyAnswer,
  retryDelaySeconds,
  verifiedCosignature,
  type WitnessAnswer,
} from '../domain/witnesses/add-checkpoint-client.js';
import { parseCheckpoint } from '../domain/tlog/checkpoint.js';
import { parseNote, verifierFromVkey } from '../domain/tlog/note.js';
import { cachedTileReader } from '../domain/tlog/tile-cache.js';
import { consistencyProof, type TileReader } from '../domain/tlog/tree.js';
import { appendUnlessRaced, type Actor } from '../ledger-writer/append.js';
import { isoNow } from '../ports/clock.js';
import { MAX_DELAY_SECONDS } from '../ports/queue.js';
import type { Deps } from '../runtime/deps.js';
import { logger, WITNESS_REFUSED_LOG } from '../runtime/logger.js';
import {
  logTileReader,
  putCosignature,
  readLatestCheckpoint,
  type StoredCheckpoint,
} from '../store/log-store.js';
import { LOST_RACE } from '../store/lost-race.js';
import {
  readWitnessStates,
  recordSubmission,
  startRefusalItem,
  type WitnessStateItem,
} from '../store/witness-store.js';
import { webhookConfig, type WebhookConfig } from './webhook-config.js';
import { DeliveryNetworkError, postWebhook } from './webhook-http.js';
import type { WitnessMessage } from './witness-queue.js';
import { witnessTargets, type WitnessTarget } from './witness-registry.js';

/*
 * Submitting a firm's checkpoints to its witnesses (issue 31, "Submitting"; docs/architecture.md, "Witnesses").
 * The log-checkpoint worker queues a message after each checkpoint it stores for a firm with witnesses; this
 * worker POSTs the latest checkpoint to every witness of the firm and of the platform (C2SP tlog-witness
 * add-checkpoint) with the consistency proof from the size the witness last acknowledged, learns the witness's
 * size from a 409 and answers again, verifies the cosignature of a 200 with the witness's vkey before storing
 * it (log-store's putCosignature: GET /v1/ledger/log/checkpoint serves it), and records per firm and witness what
 * it learnt. A witness that did not answer (network error, 5xx, 429) is tried again by a message of its own, delayed with
 * backoff, for a bounded number of attempts; a newer checkpoint supersedes it. A 422 raises the alarm.
 */

/** Attempts per witness and checkpoint (the first and its retries), then the next checkpoint tries again. */
export const WITNESS_MAX_ATTEMPTS = 8;
/** Backoff of the first retry; it doubles up to SQS's longest delay (5 s, 10 s, 20 s … 640 s: about 21 min). */
export const WITNESS_RETRY_BASE_SECONDS = 5;
/** A witness's answer: cosignature lines, a size or a reason; anything longer is not a tlog-witness answer. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** 409 rounds within one attempt: the first answer names the size; a second 409 means it moved meanwhile. */
const MAX_SIZE_ROUNDS = 3;

/** The actor of the LOG_WITNESS_REFUSED records the service writes on its own. */
export const LOG_WITNESS_ACTOR: Actor = {
  id: 'system:log-witness',
  name: 'Log witness submission',
  fcaRef: null,
};

export async function submitToWitnesses(
  deps: Deps,
  message: WitnessMessage,
  config: WebhookConfig = webhookConfig(),
): Promise<void> {
  const { firmId } = message;
  const latest = await readLatestCheckpoint(deps, firmId);
  if (!latest) return;
  // A retry of an older checkpoint is superseded: the newer checkpoint's own message submits that one.
  if (message.witnessKeyId !== undefined && latest.size > message.size) return;
  const [targets, states] = await Promise.all([
    witnessTargets(deps, firmId),
    readWitnessStates(deps, firmId),
  ]);
  const chosen =
    message.witnessKeyId === undefined ? targets : targets.filter((t) => t.keyId === message.witnessKeyId);
  // The witnesses usually stand at one size: their consistency proofs share their tiles, read once.
  const tiles = cachedTileReader(logTileReader(deps, firmId));
  const results = await Promise.allSettled(
    chosen.map((target) =>
      submitOne(deps, firmId, latest, target, states.get(target.keyId), message.attempt ?? 1, config, tiles),
    ),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  // Our own failure (DynamoDB, SQS): the queue receives the message again; witnesses done by then are skipped.
  if (failed) throw failed.reason;
}

/** Nothing to do: cosigned already, the witness is ahead, or this checkpoint already had its final answer. */
function alreadyDone(state: WitnessStateItem | undefined, size: number, attempt: number): boolean {
  if (!state) return false;
  if (state.cosignedSize === size || (state.acknowledgedSize ?? 0) > size) return true;
  return attempt === 1 && state.submittedSize === size && state.lastOutcome !== 'size';
}

async function submitOne(
  deps: Deps,
  firmId: string,
  checkpoint: StoredCheckpoint,
  witness: WitnessTarget,
  state: WitnessStateItem | undefined,
  attempt: number,
  config: WebhookConfig,
  tiles: TileReader,
): Promise<void> {
  if (alreadyDone(state, checkpoint.size, attempt)) return;
  const text = parseNote(checkpoint.note).text;
  let oldSize = Math.min(state?.acknowledgedSize ?? 0, checkpoint.size);
  let answer: WitnessAnswer = { kind: 'unavailable', reason: 'not submitted' };
  for (let round = 1; round <= MAX_SIZE_ROUNDS; round++) {
    answer = await post(checkpoint, witness, oldSize, config, tiles);
    if (answer.kind !== 'size') break;
    if (answer.size > checkpoint.size || answer.size === oldSize) break;
    // The witness's size differs from what we believed (it restarted from other state, or we lost an answer).
    logger.info('A witness named its size; answering with the proof from it', {
      firmId,
      witnessKeyId: witness.keyId,
      believed: oldSize,
      size: answer.size,
    });
    oldSize = answer.size;
  }
  const at = isoNow(deps.clock);
  const base = { submittedSize: checkpoint.size, at };
  switch (answer.kind) {
    case 'cosigned': {
      const verifier = await verifierFromVkey(witness.vkey);
      const cosignature = await verifiedCosignature(text, answer.body, verifier);
      if (!cosignature) {
        logger.error('A witness answered 200 without a cosignature that verifies with its vkey; not kept', {
          firmId,
          witnessKeyId: witness.keyId,
          size: checkpoint.size,
        });
        await recordSubmission(deps, firmId, witness.keyId, {
          ...base,
          acknowledgedSize: checkpoint.size,
          outcome: 'bad-cosignature',
          error: 'no cosignature by its vkey verified',
          cosigned: false,
        });
        return;
      }
      await putCosignature(deps, firmId, {
        size: checkpoint.size,
        witnessKeyId: witness.keyId,
        line: cosignature.line,
        witnessName: witness.name,
        cosignedAt: new Date(cosignature.timestamp * 1000).toISOString(),
      });
      await recordSubmission(deps, firmId, witness.keyId, {
        ...base,
        acknowledgedSize: checkpoint.size,
        outcome: 'cosigned',
        error: null,
        cosigned: true,
      });
      return;
    }
    case 'size':
      // Ahead of this checkpoint (the next one will be submitted to it), or it keeps naming the size we sent.
      await recordSubmission(deps, firmId, witness.keyId, {
        ...base,
        acknowledgedSize: answer.size,
        outcome: 'size',
        error: answer.size > checkpoint.size ? null : `409 naming size ${answer.size} again`,
        cosigned: false,
      });
      return;
    case 'refused':
      await recordSubmission(deps, firmId, witness.keyId, {
        ...base,
        acknowledgedSize: oldSize,
        outcome: 'refused',
        error: answer.reason,
        cosigned: false,
      });
      await raiseRefusal(deps, firmId, checkpoint, witness, oldSize, answer.reason);
      return;
    case 'unavailable': {
      await recordSubmission(deps, firmId, witness.keyId, {
        ...base,
        acknowledgedSize: oldSize,
        outcome: 'unavailable',
        error: answer.reason,
        cosigned: false,
      });
      if (attempt >= WITNESS_MAX_ATTEMPTS) {
        logger.warn('A witness did not answer any attempt; the next checkpoint is submitted to it again', {
          firmId,
          witnessKeyId: witness.keyId,
          size: checkpoint.size,
          attempts: attempt,
          lastError: answer.reason,
        });
        return;
      }
      const retry: WitnessMessage = {
        firmId,
        size: checkpoint.size,
        witnessKeyId: witness.keyId,
        attempt: attempt + 1,
      };
      await deps.queue.send('log-witness', retry, {
        delaySeconds: retryDelaySeconds(attempt, WITNESS_RETRY_BASE_SECONDS, MAX_DELAY_SECONDS),
      });
      return;
    }
    case 'rejected':
      logger.warn('A witness rejected a checkpoint (it may not follow this log or trust its keys)', {
        firmId,
        witnessKeyId: witness.keyId,
        size: checkpoint.size,
        reason: answer.reason,
      });
      await recordSubmission(deps, firmId, witness.keyId, {
        ...base,
        acknowledgedSize: oldSize,
        outcome: 'rejected',
        error: answer.reason,
        cosigned: false,
      });
      return;
  }
}

/** One POST of `<url>/add-checkpoint` with the proof from `oldSize`; a missing answer is `unavailable`. */
async function post(
  checkpoint: StoredCheckpoint,
  witness: WitnessTarget,
  oldSize: number,
  config: WebhookConfig,
  tiles: TileReader,
): Promise<WitnessAnswer> {
  const proof =
    oldSize === 0 || oldSize >= checkpoint.size
      ? []
      : await consistencyProof(tiles, oldSize, checkpoint.size);
  const body = addCheckpointBody(oldSize, proof, checkpoint.note);
  try {
    const result = await postWebhook(
      `${witness.url}/add-checkpoint`,
      body,
      { 'Content-Type': 'text/plain; charset=utf-8' },
      { timeoutMs: config.timeoutMs, policy: config.policy, maxResponseBytes: MAX_ANSWER_BYTES },
    );
    return classifyAnswer(result.statusCode, result.contentType ?? '', result.body ?? '');
  } catch (error) {
    if (error instanceof DeliveryNetworkError) return { kind: 'unavailable', reason: error.message };
    throw error;
  }
}

/**
 * The alarm of a 422: the ERROR line the metric filter counts (every refusal), and, once per refusing episode
 * of the witness, the LOG_WITNESS_REFUSED ledger record, which the webhooks deliver as `log.witness-refused`.
 */
async function raiseRefusal(
  deps: Deps,
  firmId: string,
  checkpoint: StoredCheckpoint,
  witness: WitnessTarget,
  witnessSize: number,
  reason: string,
): Promise<void> {
  const origin = parseCheckpoint(parseNote(checkpoint.note).text).origin;
  const details = {
    origin,
    checkpointSize: checkpoint.size,
    witnessSize,
    witnessKeyId: witness.keyId,
    witnessName: witness.name,
    witnessUrl: witness.url,
    witnessScope: witness.scope,
    reason,
  };
  logger.error(WITNESS_REFUSED_LOG, { firmId, ...details });
  const record = await appendUnlessRaced(
    deps,
    {
      firmId,
      eventType: 'LOG_WITNESS_REFUSED',
      actor: LOG_WITNESS_ACTOR,
      documentHash: '',
      documentMetadata: details,
    },
    [startRefusalItem(deps, firmId, witness.keyId, { size: checkpoint.size, at: isoNow(deps.clock) })],
  );
  if (record !== LOST_RACE)
    logger.warn('Recorded LOG_WITNESS_REFUSED', { firmId, recordId: record.id, witnessKeyId: witness.keyId });
}
