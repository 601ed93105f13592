import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { processTree, rssBytes, treeMemory } from '../../../bench/lib/process-memory.js';

/** A shell that starts two sleeping children of its own, so this process has a tree three levels deep. */
let shell: ChildProcess;

beforeAll(async () => {
  shell = spawn('sh', ['-c', 'sleep 30 & sleep 31 & echo ready; wait'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await once(shell.stdout!, 'data');
});

afterAll(() => {
  for (const pid of processTree(shell.pid!).reverse()) process.kill(pid, 'SIGKILL');
});

describe('bench/lib/process-memory', () => {
  it("finds a process's descendants and reads their RSS", () => {
    const tree = processTree(process.pid);
    expect(tree[0]).toBe(process.pid);
    expect(tree).toContain(shell.pid);
    expect(processTree(shell.pid!)).toHaveLength(3);
    expect(rssBytes(process.pid)).toBeGreaterThan(1024 * 1024);
    expect(processTree(2 ** 30)).toEqual([]);
    expect(rssBytes(2 ** 30)).toBe(0);
  });

  it('leaves excluded subtrees and helper commands out of the total and sums them apart', () => {
    const whole = treeMemory(shell.pid!, []);
    const sleeps = processTree(shell.pid!).slice(1);
    expect(whole.pids).toHaveLength(3);

    const withoutShell = treeMemory(process.pid, [shell.pid!]);
    expect(withoutShell.pids).not.toContain(shell.pid);
    expect(withoutShell.excludedRss).toBeGreaterThan(0);

    const helpers = treeMemory(shell.pid!, [], /^sleep 3[01]$/);
    expect(helpers.pids).toEqual([shell.pid]);
    expect(helpers.helperPids.sort()).toEqual(sleeps.sort());
    expect(helpers.helperRss).toBeGreaterThan(0);
  });
});
