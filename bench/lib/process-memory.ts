/**
 * Resident memory of a process tree, read from /proc (Linux): the benches' view of what a stack holds. The
 * embedded stack's instances are worker threads of its server process, so they count in that process's RSS.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Parent pid of every process on the machine. */
function parents(): Map<number, number> {
  const ppids = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) follows the command name, which may contain spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      ppids.set(Number(entry), ppid);
    } catch {
      // The process ended while we looked.
    }
  }
  return ppids;
}

/** `root` and every process descended from it (empty when `root` is not running). */
export function processTree(root: number): number[] {
  const ppids = parents();
  if (!ppids.has(root)) return [];
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of ppids) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/** A process's resident set size in bytes (VmRSS), 0 when it is gone. */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface TreeMemory {
  /** RSS of the tree rooted at the stack's server, the excluded subtrees left out. */
  rss: number;
  pids: number[];
  /** RSS of the excluded subtrees (e.g. DynamoDB Local's JVM), reported apart. */
  excludedRss: number;
}

/** The RSS of `root`'s tree without the subtrees rooted at `exclude` (reported separately). */
export function treeMemory(root: number, exclude: number[]): TreeMemory {
  const excluded = new Set(exclude.flatMap((pid) => processTree(pid)));
  const pids = processTree(root).filter((pid) => !excluded.has(pid));
  const sum = (list: number[]) => list.reduce((total, pid) => total + rssBytes(pid), 0);
  return { rss: sum(pids), pids, excludedRss: sum([...excluded]) };
}
