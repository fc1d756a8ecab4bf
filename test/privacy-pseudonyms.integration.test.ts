/**
 * `punchline pseudonyms` and key rotation: the key comes from configuration only, the
 * pseudonyms change with it and nothing else does, and a worker still holding the old
 * key after a rotation cannot write its pseudonyms over the new key's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyIdOf, pseudonymOf } from '../src/privacy/pseudonyms.js';
import { upholdPrivacy } from '../src/privacy/erasures.js';
import { TEST_DATABASE_URL } from './support/isolation.js';
import { runPunchline } from './sync-harness.js';
import {
  block,
  CNPJ_A,
  CNPJ_B,
  CPF_1,
  CPF_2,
  loadWith,
  point,
  pointsOf,
  useMigratedWarehouse,
} from './warehouse-fixtures.js';

const OLD_KEY = 'old-pseudonym-key-0123456789abcdef0123';
const NEW_KEY = 'new-pseudonym-key-fedcba9876543210fedc';
const THIRD_KEY = 'third-pseudonym-key-00112233445566778899';
const dir = mkdtempSync(join(tmpdir(), 'punchline-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const t = useMigratedWarehouse('privacy_keys');

function env(extra: Record<string, string>): Record<string, string> {
  return { DATABASE_URL: TEST_DATABASE_URL, WAREHOUSE_SCHEMA: t.schema, LOG_LEVEL: 'debug', ...extra };
}

/** The pseudonym map and the analyst view's pseudonyms, by CPF. */
async function pseudonyms(): Promise<{ map: Record<string, string>; keyIds: string[]; inView: string[] }> {
  const map = await t.admin.query(
    `SELECT cpf, pseudonym, key_id FROM "${t.schema}".cpf_pseudonyms ORDER BY cpf`,
  );
  const view = await t.admin.query(
    `SELECT DISTINCT cpf_pseudonym FROM "${t.schema}_analyst".collaborators ORDER BY 1`,
  );
  return {
    map: Object.fromEntries(map.rows.map((r) => [r.cpf, r.pseudonym])),
    keyIds: [...new Set(map.rows.map((r) => r.key_id as string))],
    inView: view.rows.map((r) => r.cpf_pseudonym),
  };
}

/** Everything but the pseudonyms: must not move on a rotation. */
async function digest(): Promise<string> {
  const r = await t.admin.query(
    `SELECT md5(string_agg(j, ',' ORDER BY j)) AS d FROM (
       SELECT (to_jsonb(c) - 'synced_at')::text AS j FROM "${t.schema}".collaborators c
       UNION ALL SELECT (to_jsonb(p) - 'synced_at')::text FROM "${t.schema}".punches p) x`,
  );
  return r.rows[0].d;
}

beforeAll(async () => {
  await loadWith(t, 'collaborators', {}, { collaborator: [block(CPF_1), block(CPF_2)] });
  await loadWith(t, 'collaborators', { company: CNPJ_B }, { collaborator: [block(CPF_1, {}, CNPJ_B)] });
  await loadWith(
    t,
    'punches',
    { window: { from: '2026-03-01', to: '2026-03-31' } },
    {
      'point/getFromPeriod': [pointsOf(CPF_1, { '2026-03-02': [point(1, '2026-03-02 08:00:00')] })],
    },
  );
});

describe('punchline pseudonyms', () => {
  it('needs the key from configuration: exit 2 without it', async () => {
    const res = await runPunchline(['pseudonyms'], env({}));
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe(
      'punchline: PSEUDONYM_KEY is not set (export it, or PSEUDONYM_KEY_FILE naming a file that holds it)',
    );
  }, 30_000);

  it('has no command-line option for the key', async () => {
    const res = await runPunchline(['pseudonyms', '--key', OLD_KEY], env({}));
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown option '--key'/);
  }, 30_000);

  it('maps every CPF once, the same in every company, without logging the key', async () => {
    const file = join(dir, 'old.key');
    writeFileSync(file, `${OLD_KEY}\n`);
    const res = await runPunchline(['pseudonyms'], env({ PSEUDONYM_KEY_FILE: file }));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(
      `schema ${t.schema}: 2 CPFs given a pseudonym of key ${keyIdOf(OLD_KEY)}, 0 pseudonyms of an older key removed`,
    );
    expect(res.stderr).toContain('pseudonyms computed'); // the debug-level log ran…
    expect(`${res.stdout}${res.stderr}`).not.toContain(OLD_KEY); // …without the key
    const p = await pseudonyms();
    expect(p.map).toEqual({ [CPF_1]: pseudonymOf(OLD_KEY, CPF_1), [CPF_2]: pseudonymOf(OLD_KEY, CPF_2) });
    expect(p.inView).toEqual([pseudonymOf(OLD_KEY, CPF_1), pseudonymOf(OLD_KEY, CPF_2)].sort());
    const again = await runPunchline(['pseudonyms'], env({ PSEUDONYM_KEY: OLD_KEY }));
    expect(again.stdout).toContain(': 0 CPFs given a pseudonym');
  }, 60_000);

  it('after a key rotation, changes every pseudonym and nothing else', async () => {
    const before = await digest();
    const res = await runPunchline(['pseudonyms'], env({ PSEUDONYM_KEY: NEW_KEY }));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`2 CPFs given a pseudonym of key ${keyIdOf(NEW_KEY)}`);
    const p = await pseudonyms();
    expect(p.map).toEqual({ [CPF_1]: pseudonymOf(NEW_KEY, CPF_1), [CPF_2]: pseudonymOf(NEW_KEY, CPF_2) });
    expect(p.keyIds).toEqual([keyIdOf(NEW_KEY)]);
    expect(p.inView).toEqual([pseudonymOf(NEW_KEY, CPF_1), pseudonymOf(NEW_KEY, CPF_2)].sort());
    expect(await digest()).toBe(before);
  }, 60_000);

  it('removes the pseudonyms of an older key whose CPF is gone', async () => {
    await t.admin.query(
      `INSERT INTO "${t.schema}".cpf_pseudonyms (cpf, pseudonym, key_id, key_generation) VALUES ('99999999999', 'stale', 'old', 0)`,
    );
    const res = await runPunchline(['pseudonyms'], env({ PSEUDONYM_KEY: NEW_KEY }));
    expect(res.stdout).toContain('0 CPFs given a pseudonym');
    expect(res.stdout).toContain('1 pseudonyms of an older key removed');
    expect(Object.keys((await pseudonyms()).map)).toEqual([CPF_1, CPF_2]);
  }, 60_000);

  it("leaves the new key's pseudonyms alone when a worker still on the old key syncs after the rotation", async () => {
    // What every sync of a company runs after its load, with the key of the worker that ran it.
    const stale = await upholdPrivacy(t.w.pool, t.schema, CNPJ_A, OLD_KEY);
    expect(stale).toMatchObject({ mapped: 0, staleKey: true });
    expect((await pseudonyms()).map).toEqual({
      [CPF_1]: pseudonymOf(NEW_KEY, CPF_1),
      [CPF_2]: pseudonymOf(NEW_KEY, CPF_2),
    });
  });

  it('makes a key used for the first time the current one; only punchline pseudonyms brings an older key back', async () => {
    expect(await upholdPrivacy(t.w.pool, t.schema, CNPJ_A, THIRD_KEY)).toMatchObject({
      mapped: 2,
      staleKey: false,
    });
    expect((await pseudonyms()).map).toEqual({
      [CPF_1]: pseudonymOf(THIRD_KEY, CPF_1),
      [CPF_2]: pseudonymOf(THIRD_KEY, CPF_2),
    });
    expect(await upholdPrivacy(t.w.pool, t.schema, CNPJ_A, NEW_KEY)).toMatchObject({
      mapped: 0,
      staleKey: true,
    });
    const back = await runPunchline(['pseudonyms'], env({ PSEUDONYM_KEY: NEW_KEY }));
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain(`2 CPFs given a pseudonym of key ${keyIdOf(NEW_KEY)}`);
    expect((await pseudonyms()).map).toEqual({
      [CPF_1]: pseudonymOf(NEW_KEY, CPF_1),
      [CPF_2]: pseudonymOf(NEW_KEY, CPF_2),
    });
    expect(await upholdPrivacy(t.w.pool, t.schema, CNPJ_A, THIRD_KEY)).toMatchObject({
      mapped: 0,
      staleKey: true,
    });
  }, 60_000);
});
