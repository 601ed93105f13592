import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/store/keys.js';
import { ROOT } from '../support/local-stack.js';
import { api, createFirm, stack, stackDeps } from './helpers.js';

/** scripts/verify-chain.sh: curl, jq, openssl and Python's own RFC 8785 code; none of ours. */
function verifyChain(apiKey: string) {
  const result = spawnSync('bash', [join(ROOT, 'scripts/verify-chain.sh')], {
    env: { ...process.env, BASE_URL: stack.baseUrl, API_KEY: apiKey, PAGE_SIZE: '2' },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('independent chain verification (scripts/verify-chain.sh)', () => {
  it('verifies a chain served by the API, then detects a row tampered in the database', async () => {
    const firm = await createFirm();
    for (const [i, enforce] of [false, true, false, true, false].entries()) {
      const body = {
        enforceImpactAssessments: enforce,
        biasWarningThreshold: 0.1 + i / 1000,
        biasAlertThreshold: 0.5,
      };
      expect((await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body })).status).toBe(200);
    }
    const clean = verifyChain(firm.key);
    expect(clean.output).toMatch(/5 records/);
    expect(clean.status).toBe(0);

    // An attacker with database access rewrites the actor of record 3.
    const deps = stackDeps();
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.ledger,
        Key: keys.ledgerRecord(firm.firmId, 3),
        UpdateExpression: 'SET actorName = :name',
        ExpressionAttributeValues: { ':name': 'Mallory' },
      }),
    );
    const tampered = verifyChain(firm.key);
    expect(tampered.status).toBe(1);
    expect(tampered.output).toMatch(/RECORD_HASH_MISMATCH/);
  });
});
