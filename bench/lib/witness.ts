/**
 * Our C2SP tlog-witness (bin/witness.ts, `npm run witness`) as a real process for benches: a free port on
 * 127.0.0.1, a temporary state folder, the log vkeys it follows. Resolves once it prints "listening on", with its
 * submission URL and its own C2SP vkey (type 0x04), as an operator would read them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BenchWitness {
  url: string;
  vkey: string;
  pid: number | undefined;
  output(): string;
  stop(): Promise<void>;
}

export async function startWitness(name: string, logVkeys: string[]): Promise<BenchWitness> {
  const state = mkdtempSync(join(tmpdir(), 'bench-witness-'));
  const args = ['--listen', '127.0.0.1:0', '--state', state, '--name', name];
  for (const vkey of logVkeys) args.push('--log-vkey', vkey);
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/witness.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await Promise.race([
    new Promise<string>((ready) => {
      const onData = () => {
        const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
        if (!match) return;
        child.stdout.off('data', onData);
        ready(match[1]!);
      };
      child.stdout.on('data', onData);
    }),
    exited.then((code): string => {
      throw new Error(`witness ${name} exited with ${code}:\n${output}`);
    }),
  ]);
  const vkey = /^vkey (\S+)$/m.exec(output)?.[1];
  if (!vkey) throw new Error(`witness ${name} printed no vkey:\n${output}`);
  return {
    url,
    vkey,
    pid: child.pid,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(state, { recursive: true, force: true });
    },
  };
}
