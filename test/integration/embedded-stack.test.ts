import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ledgerctl, startStack, stopStack } from '../support/local-stack.js';
import { call } from '../support/stack-client.js';

function javaAlive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal');
  } catch {
    return false;
  }
}

describe('the embedded stack (npm start)', () => {
  it('keeps all data across a restart on the same DATA_DIR and shuts down with its Java child', async () => {
    const first = await startStack();
    const javaPid = Number(readFileSync(join(first.dataDir, 'dynamodb.pid'), 'utf8'));
    expect(javaAlive(javaPid)).toBe(true);

    const created = await ledgerctl(first.dataDir, [
      'firm',
      'create',
      '--name',
      'Persist Ltd',
      '--frn',
      '7654321',
      '--plan',
      'LEDGER',
      '--admin-name',
      'Pat',
      '--admin-email',
      'pat@persist.test',
    ]);
    expect(created.code).toBe(0);
    const { firm, apiKey } = created.json as { firm: { id: string }; apiKey: string };
    const patch = await call(first, 'PATCH', '/v1/firm/me/settings', {
      key: apiKey,
      body: { enforceImpactAssessments: false },
    });
    expect(patch.status).toBe(200);
    const keyBefore = (await call(first, 'GET', '/.well-known/signing-key')).body;

    expect(await stopStack(first)).toBe(0);
    expect(javaAlive(javaPid)).toBe(false);
    expect(existsSync(join(first.dataDir, 'local-stack.json'))).toBe(false);

    const second = await startStack({ dataDir: first.dataDir });
    try {
      const me = await call(second, 'GET', '/v1/firm/me', { key: apiKey });
      expect(me.status).toBe(200);
      expect(me.body.settings.enforceImpactAssessments).toBe(false);
      expect((await call(second, 'GET', '/.well-known/signing-key')).body).toEqual(keyBefore);
      const records = (await call(second, 'GET', '/v1/ledger/records', { key: apiKey })).body as {
        data: { firmId: string }[];
      };
      expect(records.data).toHaveLength(1);
      expect(records.data[0]!.firmId).toBe(firm.id);
    } finally {
      await stopStack(second, { removeData: true });
    }
  });

  it('ledgerctl explains what is wrong on stderr, prints nothing on stdout and exits non-zero', async () => {
    const noStack = await ledgerctl('/nonexistent-data-dir', [
      'api-key',
      'create',
      '--firm',
      'firm_x',
      '--name',
      'x',
    ]);
    expect(noStack.code).toBe(2);
    expect(noStack.stdout).toBe('');
    expect(noStack.stderr).toMatch(/npm start/);

    const stack = JSON.parse(process.env.GLS_TEST_STACK!) as { dataDir: string };
    const badPlan = await ledgerctl(stack.dataDir, [
      'firm',
      'create',
      '--name',
      'X',
      '--frn',
      '12',
      '--plan',
      'GOLD',
      '--admin-name',
      'A',
      '--admin-email',
      'not-an-email',
    ]);
    expect(badPlan.code).toBe(2);
    expect(badPlan.stdout).toBe('');
    expect(badPlan.stderr).toMatch(/frnNumber|plan|adminEmail/);

    const unknownFirm = await ledgerctl(stack.dataDir, [
      'api-key',
      'create',
      '--firm',
      'firm_nope',
      '--name',
      'x',
    ]);
    expect(unknownFirm.code).toBe(2);
    expect(unknownFirm.stderr).toMatch(/No firm/);

    const unknownCommand = await ledgerctl(stack.dataDir, ['firm', 'delete']);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/usage/);
  });

  it('ledgerctl api-key create prints a working key', async () => {
    const stack = JSON.parse(process.env.GLS_TEST_STACK!) as { dataDir: string; baseUrl: string };
    const created = await ledgerctl(stack.dataDir, [
      'firm',
      'create',
      '--name',
      'Keys Ltd',
      '--frn',
      '123456',
      '--plan',
      'BOTH',
      '--admin-name',
      'K',
      '--admin-email',
      'k@keys.test',
    ]);
    const firmId = (created.json as { firm: { id: string } }).firm.id;
    const key = await ledgerctl(stack.dataDir, ['api-key', 'create', '--firm', firmId, '--name', 'ci']);
    expect(key.code).toBe(0);
    expect(key.stdout.trim().split('\n')).toHaveLength(1);
    const json = key.json as { id: string; key: string; name: string; createdAt: string; scope: string };
    expect(Object.keys(json).sort()).toEqual(['createdAt', 'id', 'key', 'name', 'scope']);
    const me = await call(stack, 'GET', '/v1/firm/me', { key: json.key });
    expect(me.body.id).toBe(firmId);
  });
});
