import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { processTree } from './process-memory.js';

/** Clock ticks per second of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU seconds (user + system, children included) a process has used so far. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start at field 3; utime..cstime are 14..17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((total, ticks) => total + Number(ticks), 0) / CLOCK_TICKS;
}

/**
 * CPU seconds a process and its live descendants have used so far, leaving out the subtrees of `exclude` (e.g. a
 * stack's DynamoDB Local, counted apart). `tsx script.ts` runs the script in a child node process, whose time its
 * parent's stat shows only once it has exited: so a tree, not a pid.
 */
export function treeCpuSeconds(pid: number | undefined, exclude: (number | undefined)[] = []): number {
  if (!pid) return Number.NaN;
  const excluded = new Set(exclude.flatMap((root) => (root ? processTree(root) : [])));
  let total = 0;
  for (const member of processTree(pid)) {
    if (excluded.has(member)) continue;
    try {
      total += cpuSeconds(member);
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/**
 * The whole machine's CPU time so far from /proc/stat, in jiffies over every core: busy, waiting on I/O with
 * nothing else to run (`iowait`), and in all. Deltas between two readings give shares of the machine.
 */
export function machineJiffies(): { busy: number; iowait: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3]! - fields[4]!, iowait: fields[4]!, total };
}

/** Runs `count` operations from `concurrency` loops; returns wall time and each operation's latency. */
export async function runLoops(
  count: number,
  concurrency: number,
  operation: (index: number) => Promise<unknown>,
): Promise<{ wallMs: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const loop = async () => {
    while (next < count) {
      const index = next++;
      const start = performance.now();
      await operation(index);
      latencies.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, loop));
  return { wallMs: performance.now() - start, latencies };
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}
