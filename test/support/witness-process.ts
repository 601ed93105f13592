import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './local-stack.js';

/*
 * Our witness (bin/witness.ts, issue 31) as a real process for the tests that need one: it follows the logs whose
 * vkeys are in `vkeysFile`, keeps its state in `stateDir`, and prints its own vkey and address when it listens.
 */

const TSX = join(ROOT, 'node_modules/.bin/tsx');

export interface WitnessProcess {
  child: ChildProcess;
  vkey: string;
  url: string;
  port: number;
  output(): string;
}

/** Starts bin/witness.ts on `port` (0: a free one) and waits (up to a minute) for its vkey and address. */
export async function startWitness(
  stateDir: string,
  name: string,
  vkeysFile: string,
  port = 0,
): Promise<WitnessProcess> {
  const child = spawn(
    TSX,
    [
      'bin/witness.ts',
      '--state',
      stateDir,
      '--name',
      name,
      '--log-vkeys-file',
      vkeysFile,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!/listening on http:\/\//.test(output)) {
    if (child.exitCode !== null) throw new Error(`witness exited: ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`Timed out waiting for witness ${name} to listen: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  const vkey = /^vkey (\S+)$/m.exec(output)![1]!;
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  return { child, vkey, url, port: Number(new URL(url).port), output: () => output };
}

export async function stopWitness(witness: WitnessProcess): Promise<void> {
  if (witness.child.exitCode !== null) return;
  const exited = new Promise((done) => witness.child.once('exit', done));
  witness.child.kill('SIGTERM');
  await exited;
}
