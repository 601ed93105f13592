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

/** A process's command line (its arguments joined by spaces), empty when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

export interface TreeMemory {
  /** RSS of the tree rooted at `root`, the excluded processes left out. */
  rss: number;
  pids: number[];
  /** RSS of the subtrees rooted at `excludeRoots` (e.g. DynamoDB Local's JVM), reported apart. */
  excludedRss: number;
  /** RSS of the processes whose command line matches `excludeCommand` (e.g. a loader's helper), reported apart. */
  helperRss: number;
  helperPids: number[];
}

/**
 * The RSS of `root`'s tree without the subtrees rooted at `excludeRoots` and without the processes whose command
 * line matches `excludeCommand`; both are summed apart.
 */
export function treeMemory(root: number, excludeRoots: number[], excludeCommand?: RegExp): TreeMemory {
  const excluded = new Set(excludeRoots.flatMap((pid) => processTree(pid)));
  const rest = processTree(root).filter((pid) => !excluded.has(pid));
  const helperPids = excludeCommand ? rest.filter((pid) => excludeCommand.test(commandLine(pid))) : [];
  const pids = rest.filter((pid) => !helperPids.includes(pid));
  const sum = (list: number[]) => list.reduce((total, pid) => total + rssBytes(pid), 0);
  return { rss: sum(pids), pids, excludedRss: sum([...excluded]), helperRss: sum(helperPids), helperPids };
}
