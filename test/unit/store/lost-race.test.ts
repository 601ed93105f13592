import { jest } from '@jest/globals';
import { LOST_RACE, retryOnLostRace, type LostRace } from '../../../shared/store/lost-race.js';

class Exhausted extends Error {}
const exhausted = () => new Exhausted('every attempt lost');

/** setTimeout that runs at once and remembers the delays asked for. */
function recordWaits(): number[] {
  const waits: number[] = [];
  jest.spyOn(globalThis, 'setTimeout').mockImplementation(((run: () => void, ms?: number) => {
    waits.push(ms ?? 0);
    run();
    return 0 as unknown as NodeJS.Timeout;
  }) as typeof setTimeout);
  return waits;
}

afterEach(() => jest.restoreAllMocks());

describe('retryOnLostRace', () => {
  it('answers the first attempt that does not lose, numbering the attempts from 1', async () => {
    recordWaits();
    const seen: number[] = [];
    const result = await retryOnLostRace(
      async (n): Promise<string | LostRace> => {
        seen.push(n);
        return n < 3 ? LOST_RACE : `won on ${n}`;
      },
      { attempts: 5, exhausted },
    );
    expect(result).toBe('won on 3');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('makes one attempt, and waits not at all, when it wins at once', async () => {
    const waits = recordWaits();
    const attempt = jest.fn(async () => 42);
    expect(await retryOnLostRace(attempt, { attempts: 3, exhausted })).toBe(42);
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(waits).toEqual([]);
  });

  it('throws the exhausted error after exactly `attempts` lost races', async () => {
    const waits = recordWaits();
    const attempt = jest.fn(async (): Promise<number | LostRace> => LOST_RACE);
    await expect(retryOnLostRace(attempt, { attempts: 4, exhausted })).rejects.toBeInstanceOf(Exhausted);
    expect(attempt).toHaveBeenCalledTimes(4);
    // A wait between attempts, none after the last.
    expect(waits).toHaveLength(3);
  });

  it('passes an error of an attempt through at once, without retrying', async () => {
    recordWaits();
    const refused = new Error('not allowed');
    const attempt = jest.fn(async (): Promise<number | LostRace> => {
      throw refused;
    });
    await expect(retryOnLostRace(attempt, { attempts: 5, exhausted })).rejects.toBe(refused);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('backs off with growing, random waits bounded by maxBackoffMs', async () => {
    const waits = recordWaits();
    jest.spyOn(Math, 'random').mockReturnValue(0.999999);
    const lose = async (): Promise<number | LostRace> => LOST_RACE;
    await expect(retryOnLostRace(lose, { attempts: 12, exhausted, maxBackoffMs: 100 })).rejects.toThrow(
      Exhausted,
    );
    expect(waits).toHaveLength(11);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(100);
    // The ceiling doubles from attempt to attempt until it reaches the bound.
    expect(waits.slice(0, 4).map(Math.round)).toEqual([10, 20, 40, 80]);
    expect(waits.slice(4).every((wait) => Math.round(wait) === 100)).toBe(true);
  });

  it('waits no longer than its default bound of 200 ms however many attempts it makes', async () => {
    const waits = recordWaits();
    jest.spyOn(Math, 'random').mockReturnValue(0.999999);
    const lose = async (): Promise<number | LostRace> => LOST_RACE;
    await expect(retryOnLostRace(lose, { attempts: 40, exhausted })).rejects.toThrow(Exhausted);
    expect(Math.max(...waits)).toBeLessThanOrEqual(200);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
  });
});
