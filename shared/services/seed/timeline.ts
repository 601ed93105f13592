import { monotonicFactory } from 'ulid';
import { ID_PREFIX } from '../../ids.js';
import type { Actor, RecordPayload } from '../../ledger/record.js';
import type { UserItem } from '../../store/user-store.js';

/** What a seeded record says, besides its id, firm, sequence and timestamp. */
export type Body = Pick<RecordPayload, 'eventType' | 'documentHash' | 'documentMetadata' | 'reviewJobId'> & {
  actor: Actor;
};

/** Builds a record's body; called in chain order with its id, index and timestamp (earlier ids are known). */
export type Build = (id: string, index: number, timestamp: string) => Body;

export const actorOfUser = (user: UserItem): Actor => ({ id: user.id, name: user.name, fcaRef: user.fcaRef });

/**
 * The seeded history's events on a time line inside [from, to]: `at` places one, `payloads` puts them in time
 * order (ties in placing order) and builds the records. Ids are ULIDs of the event's own instant (`ulidAt`,
 * monotonic), so id order follows time as it does for records written live.
 */
export class Timeline {
  private readonly events: { at: number; order: number; build: Build }[] = [];
  private readonly nextUlid = monotonicFactory();

  constructor(
    private readonly from: number,
    private readonly to: number,
  ) {}

  get size(): number {
    return this.events.length;
  }

  readonly at = (time: number, build: Build): void => {
    const at = Math.min(this.to, Math.max(this.from, Math.round(time)));
    this.events.push({ at, order: this.events.length, build });
  };

  readonly ulidAt = (ms: number): string => this.nextUlid(ms);

  payloads(firmId: string): Omit<RecordPayload, 'sequenceNumber'>[] {
    this.events.sort((a, b) => a.at - b.at || a.order - b.order);
    return this.events.map((event, index) => {
      const timestamp = new Date(event.at).toISOString();
      const id = `${ID_PREFIX.record}_${this.ulidAt(event.at)}`;
      const { actor, ...body } = event.build(id, index, timestamp);
      return {
        id,
        firmId,
        ...body,
        actorId: actor.id,
        actorName: actor.name,
        actorFcaRef: actor.fcaRef,
        timestamp,
      };
    });
  }
}
