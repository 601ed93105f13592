import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCheckpoint } from '../domain/tlog/checkpoint.js';
import { formatNote, formatSignatureLines, parseNote } from '../domain/tlog/note.js';
import {
  AddCheckpointRequestError,
  decideAddCheckpoint,
  parseAddCheckpointRequest,
  type AddCheckpointOutcome,
} from './add-checkpoint.js';
import type { LogKeys } from './log-keys.js';
import { originHash, type WitnessStateStore } from './state-store.js';
import type { WitnessIdentity } from './witness-key.js';

/**
 * The witness's HTTP interface (C2SP tlog-witness), submission and monitoring prefix both `/`:
 *   POST /add-checkpoint          cosign a checkpoint consistent with the last one cosigned for its origin
 *   GET  /<origin hash>/checkpoint the last cosigned checkpoint of a log (hex SHA-256 of its origin)
 * Answers are text/plain, except a 409's `text/x.tlog.size` body (the size last cosigned). A refused checkpoint
 * that the log validly signed (422) is kept under `<state>/refused/`: it may be evidence of a split view.
 */

/** A checkpoint with up to 100 signature lines and 63 proof lines fits well within this. */
export const MAX_BODY_BYTES = 256 * 1024;

export interface WitnessServerOptions {
  logs: LogKeys;
  store: WitnessStateStore;
  identity: WitnessIdentity;
  stateDir: string;
  /** POSIX seconds for the cosignature timestamp. */
  now?: () => number;
  log?: (entry: Record<string, unknown>) => void;
}

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLargeError());
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function createWitnessServer(options: WitnessServerOptions): Server {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const log = options.log ?? ((entry) => console.log(JSON.stringify(entry)));
  const refusedDir = join(options.stateDir, 'refused');

  async function keepRefused(origin: string, body: string, reason: string): Promise<void> {
    await mkdir(refusedDir, { recursive: true, mode: 0o700 });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const name = `${stamp}-${originHash(origin).slice(0, 16)}-${randomBytes(4).toString('hex')}.txt`;
    await writeFile(join(refusedDir, name), `# ${reason}\n${body}`, { mode: 0o600 });
  }

  async function addCheckpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: string;
    try {
      body = new TextDecoder('utf-8', { fatal: true }).decode(await readBody(req));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return send(res, 413, 'request body too large\n');
      if (error instanceof TypeError) return send(res, 400, 'the body is not UTF-8\n');
      throw error;
    }
    let request;
    let origin: string;
    try {
      request = parseAddCheckpointRequest(body);
      origin = parseCheckpoint(parseNote(request.note).text).origin;
    } catch (error) {
      if (error instanceof AddCheckpointRequestError) return send(res, 400, `${error.message}\n`);
      return send(res, 400, `malformed checkpoint: ${(error as Error).message}\n`);
    }
    const outcome = await options.store.update<{ decided: AddCheckpointOutcome; cosignature: string }>(
      origin,
      async (current) => {
        const decided: AddCheckpointOutcome = await decideAddCheckpoint(
          request,
          options.logs,
          async () => current,
        );
        if (decided.status !== 200) return { result: { decided, cosignature: '' } };
        const cosignature = options.identity.cosign(decided.text, now());
        const note = formatNote(decided.text, [...decided.logSignatures, cosignature]);
        const { size, root } = decided.checkpoint;
        return {
          result: { decided, cosignature: formatSignatureLines([cosignature]) },
          next: { origin, size, root, note },
        };
      },
    );
    const { decided } = outcome;
    log({
      event: 'add-checkpoint',
      origin,
      oldSize: request.oldSize,
      status: decided.status,
      ...describe(decided),
    });
    switch (decided.status) {
      case 200:
        return send(res, 200, outcome.cosignature);
      case 409:
        return send(res, 409, `${decided.size}\n`, 'text/x.tlog.size');
      case 422:
        await keepRefused(origin, body, decided.reason);
        return send(res, 422, `${decided.reason}\n`);
      default:
        return send(res, decided.status, `${decided.reason}\n`);
    }
  }

  async function monitor(hash: string, res: ServerResponse): Promise<void> {
    const state = await options.store.readByHash(hash);
    if (!state) return send(res, 404, 'this witness has not cosigned a checkpoint of that log\n');
    return send(res, 200, state.note);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://witness').pathname;
    if (path === '/add-checkpoint') {
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        return send(res, 405, 'use POST\n');
      }
      return addCheckpoint(req, res);
    }
    const monitoring = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path);
    if (monitoring && (req.method === 'GET' || req.method === 'HEAD'))
      return monitor(monitoring[1] as string, res);
    return send(res, 404, 'not found\n');
  }

  return createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log({ event: 'error', message: (error as Error).message });
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
}

function describe(outcome: AddCheckpointOutcome): Record<string, unknown> {
  return outcome.status === 200 ? { size: outcome.checkpoint.size } : { reason: outcome.reason };
}
