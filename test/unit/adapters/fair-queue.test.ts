import { FairQueue } from '../../../shared/adapters/local/fair-queue.js';

describe('FairQueue', () => {
  it('serves lanes in turn, FIFO within a lane, so a backlog never delays another lane by more than a turn', () => {
    const queue = new FairQueue<string>();
    for (let n = 1; n <= 5; n++) queue.push('burst', `a${n}`);
    queue.push('quiet', 'b1');
    queue.push('other', 'c1');
    queue.push('quiet', 'b2');
    expect(queue.size).toBe(8);
    const served = Array.from({ length: 8 }, () => queue.shift());
    expect(served).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5']);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });

  it('puts a lane that empties and comes back at the end of the turn order', () => {
    const queue = new FairQueue<string>();
    queue.push('x', 'x1');
    queue.push('y', 'y1');
    queue.push('y', 'y2');
    expect(queue.shift()).toBe('x1');
    queue.push('x', 'x2');
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual(['y1', 'x2', 'y2']);
  });

  it('drains every waiter', () => {
    const queue = new FairQueue<number>();
    queue.push('a', 1);
    queue.push('b', 2);
    queue.push('a', 3);
    expect(queue.drain().sort()).toEqual([1, 2, 3]);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });
});
