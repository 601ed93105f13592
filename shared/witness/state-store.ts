import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeBase64, encodeBase64 } from '../domain/tlog/encoding.js';
import { HASH_SIZE } from '../domain/tlog/hash.js';
import type { CosignedState } from './add-checkpoint.js';

/**
 * The witness's memory: per origin, the checkpoint it last cosigned, one small JSON file each under
 * `<state>/logs/<hex SHA-256 of the origin>.json`. A change is atomic on disk (write a temporary file, fsync,
 * rename over the old one, fsync the folder), and `update` runs one read-decide-write per origin at a time in
 * this process, so two requests can never both move an origin from the same size. (Another process on the same
 * folder is kept out by the folder lock, state-lock.ts.)
 */

export class StateFileError extends Error {
  override name = 'StateFileError';
}

interface StateFile {
  origin: string;
  size: number;
  root: string;
  note: string;
  updatedAt: string;
}

/** The file name of an origin: the same hash the monitoring path `<origin hash>/checkpoint` uses. */
export function originHash(origin: string): string {
  return createHash('sha256').update(origin).digest('hex');
}

export class WitnessStateStore {
  private readonly logsDir: string;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(stateDir: string) {
    this.logsDir = join(stateDir, 'logs');
  }

  async init(): Promise<void> {
    await mkdir(this.logsDir, { recursive: true, mode: 0o700 });
  }

  private fileOf(origin: string): string {
    return join(this.logsDir, `${originHash(origin)}.json`);
  }

  async read(origin: string): Promise<CosignedState | undefined> {
    return this.readFile(this.fileOf(origin), origin);
  }

  /** The state stored under an origin hash (for the monitoring endpoint), or undefined. */
  async readByHash(hash: string): Promise<CosignedState | undefined> {
    if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
    return this.readFile(join(this.logsDir, `${hash}.json`));
  }

  private async readFile(file: string, origin?: string): Promise<CosignedState | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = JSON.parse(text) as StateFile;
    const root = decodeBase64(parsed.root);
    if (
      !root ||
      root.length !== HASH_SIZE ||
      !Number.isSafeInteger(parsed.size) ||
      (origin !== undefined && parsed.origin !== origin)
    ) {
      throw new StateFileError(`state file ${file} is corrupt`);
    }
    return { origin: parsed.origin, size: parsed.size, root, note: parsed.note };
  }

  /**
   * Runs `decide` with the origin's current state, alone for that origin; if it returns a new state, that state
   * is on disk before `update` resolves.
   */
  async update<T>(
    origin: string,
    decide: (current: CosignedState | undefined) => Promise<{ result: T; next?: CosignedState }>,
  ): Promise<T> {
    const previous = this.queues.get(origin) ?? Promise.resolve();
    const run = previous.then(async () => {
      const { result, next } = await decide(await this.read(origin));
      if (next) await this.write(next);
      return result;
    });
    const settled = run.catch(() => undefined);
    this.queues.set(origin, settled);
    void settled.then(() => {
      if (this.queues.get(origin) === settled) this.queues.delete(origin);
    });
    return run;
  }

  private async write(state: CosignedState): Promise<void> {
    const file = this.fileOf(state.origin);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const body: StateFile = {
      origin: state.origin,
      size: state.size,
      root: encodeBase64(state.root),
      note: state.note,
      updatedAt: new Date().toISOString(),
    };
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(body, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    const dir = await open(this.logsDir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}
