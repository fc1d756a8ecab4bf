/**
 * End to end: sync a month of a small group from the emulator, `punchline forget` one
 * person of one company (the CLI, as a process), sync that company again with --force —
 * the API hands the person's data back — and the person stays erased, with their hours,
 * punch times and balances kept under the tombstone. Then `forget --lift` and a sync
 * bring the person back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill } from '../src/backfill/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { pseudonymOf } from '../src/privacy/pseudonyms.js';
import { recordReceipt } from './support/push-receipts.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';

const FROM = '2026-05-01';
const TO = '2026-05-31';
const KEY = 'e2e-pseudonym-key-0123456789abcdef0123';
const TOMBSTONE = 'erased-1';

/** Tables with a CPF column, as the erasure functions see them. */
const PERSON_TABLES = [
  'collaborators',
  'collaborator_history',
  'punches',
  'work_days',
  'hour_totals',
  'tardiness',
  'adjustment_requests',
  'inconsistencies',
  'hour_bank_balances',
  'absence_collaborators',
];

/** What analysts rely on, per person: must survive the erasure unchanged. */
interface Aggregates {
  punches: number;
  punchTimes: string;
  workedSeconds: number;
  hourTotals: string;
  bankDays: number;
  bankBalance: number;
  absences: number;
  tardiness: number;
}

describe('punchline forget, then a sync of the company', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let company: string;
  let cpf: string;
  let before: Aggregates;
  let firstSeen: Date;
  let other: string;
  let env: Record<string, string>;
  const q = (table: string) => `"${h.schema}"."${table}"`;

  async function aggregates(who: string): Promise<Aggregates> {
    const one = async (sql: string) => (await h.pool.query(sql, [company, who])).rows[0];
    return {
      punches: (
        await one(
          `select count(*)::int as n from ${q('punches')} where company_cnpj = $1 and cpf = $2 and deleted_at is null`,
        )
      ).n,
      punchTimes: (
        await one(
          `select md5(string_agg(point_id || '@' || punched_at_local, ',' order by point_id)) as d from ${q('punches')} where company_cnpj = $1 and cpf = $2 and deleted_at is null`,
        )
      ).d,
      workedSeconds: (
        await one(
          `select coalesce(sum(worked_seconds), 0)::int as n from ${q('work_days')} where company_cnpj = $1 and cpf = $2 and deleted_at is null`,
        )
      ).n,
      hourTotals: (
        await one(
          `select md5(string_agg((to_jsonb(t) - 'cpf' - 'synced_at')::text, ',' order by period_start, period_end)) as d from ${q('hour_totals')} t where company_cnpj = $1 and cpf = $2 and deleted_at is null`,
        )
      ).d,
      bankDays: (
        await one(
          `select count(*)::int as n from ${q('hour_bank_balances')} where company_cnpj = $1 and cpf = $2 and deleted_at is null`,
        )
      ).n,
      bankBalance: (
        await one(
          `select coalesce(sum(day_balance_seconds), 0)::int as n from ${q('hour_bank_balances')} where company_cnpj = $1 and cpf = $2 and deleted_at is null`,
        )
      ).n,
      absences: (
        await one(
          `select count(*)::int as n from ${q('absence_collaborators')} where company_cnpj = $1 and cpf = $2 and deleted_at is null`,
        )
      ).n,
      tardiness: (
        await one(`select count(*)::int as n from ${q('tardiness')} where company_cnpj = $1 and cpf = $2`)
      ).n,
    };
  }

  /** Rows of the company that still hold the real CPF, table by table (all zero when erased). */
  async function rowsWithCpf(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const t of PERSON_TABLES) {
      out[t] = (
        await h.pool.query(`select count(*)::int as n from ${q(t)} where company_cnpj = $1 and cpf = $2`, [
          company,
          cpf,
        ])
      ).rows[0].n;
    }
    return out;
  }

  /** Personal fields of the tombstone's rows that are not null (all zero when erased). */
  async function personalLeft(): Promise<Record<string, number>> {
    const count = async (sql: string) => (await h.pool.query(sql, [company, TOMBSTONE])).rows[0].n as number;
    return {
      collaborators: await count(
        `select count(*)::int as n from ${q('collaborators')} where company_cnpj = $1 and cpf = $2 and (name is not null or email is not null or pis is not null or registration_number is not null)`,
      ),
      history: await count(
        `select count(*)::int as n from ${q('collaborator_history')} where company_cnpj = $1 and cpf = $2 and (name is not null or email is not null or registration_number is not null)`,
      ),
      punches: await count(
        `select count(*)::int as n from ${q('punches')} where company_cnpj = $1 and cpf = $2 and (latitude is not null or longitude is not null or address is not null or adjusted_by is not null or adjustment_reason is not null)`,
      ),
      adjustments: await count(
        `select count(*)::int as n from ${q('adjustment_requests')} where company_cnpj = $1 and cpf = $2 and (collaborator_reason is not null or manager_observation is not null or approved_by is not null)`,
      ),
      absences: await count(
        `select count(*)::int as n from ${q('absences')} a join ${q('absence_collaborators')} ac using (absence_id) where ac.company_cnpj = $1 and ac.cpf = $2 and (a.cid is not null or a.cid_description is not null or a.professional_name is not null or a.cr_register is not null or a.health_unit is not null or a.details is not null)`,
      ),
      attachments: await count(
        `select count(*)::int as n from ${q('absence_attachments')} x join ${q('absence_collaborators')} ac using (absence_id) where ac.company_cnpj = $1 and ac.cpf = $2`,
      ),
    };
  }

  async function resync(): Promise<void> {
    const summary = await runBackfill(
      rt,
      parseBackfillArgs({ from: FROM, to: TO, company, force: true }, rt.config),
      { pollMs: 200 },
    );
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
  }

  beforeAll(async () => {
    h = await startHarness('privacy', { today: '2026-10-31' });
    env = h.env({ PSEUDONYM_KEY: KEY });
    rt = await h.runtime({ PSEUDONYM_KEY: KEY });
    const first = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO }, rt.config), {
      pollMs: 200,
    });
    expect(first.failed, JSON.stringify(first.failures)).toBe(0);
    // The person with the most of everything that forget must erase: medical absences, punches.
    const pick = await h.pool.query<{ company_cnpj: string; cpf: string }>(
      `select ac.company_cnpj, ac.cpf from ${q('absence_collaborators')} ac join ${q('absences')} a using (absence_id)
        where a.cid_description <> '' and exists (select 1 from ${q('punches')} p where p.company_cnpj = ac.company_cnpj and p.cpf = ac.cpf)
        group by 1, 2 order by count(*) desc, 2 limit 1`,
    );
    expect(pick.rows).toHaveLength(1);
    ({ company_cnpj: company, cpf } = pick.rows[0]!);
    before = await aggregates(cpf);
    expect(before.punches).toBeGreaterThan(0);
    expect(before.absences).toBeGreaterThan(0);
    firstSeen = (
      await h.pool.query(
        `select first_seen_at from ${q('collaborators')} where company_cnpj = $1 and cpf = $2`,
        [company, cpf],
      )
    ).rows[0].first_seen_at;
    // What `punchline push --apply` recorded about the person (their CPF inside the entity's key), and about someone else.
    other = (
      await h.pool.query(
        `select cpf from ${q('collaborators')} where company_cnpj = $1 and cpf <> $2 order by cpf limit 1`,
        [company, cpf],
      )
    ).rows[0].cpf;
    const receipt = { company, connection: 'default', file: 'push.csv', line: 2 };
    await recordReceipt(h.pool, h.schema, {
      ...receipt,
      kind: 'punches',
      key: `${cpf}|2026-05-04 08:00:00`,
      createdId: '1',
    });
    await recordReceipt(h.pool, h.schema, {
      ...receipt,
      kind: 'absences',
      key: `3|2026-05-11|2026-05-12|${[cpf, other].sort().join(',')}`,
      createdId: '2',
    });
    await recordReceipt(h.pool, h.schema, {
      ...receipt,
      kind: 'punches',
      key: `${other}|2026-05-04 08:00:00`,
      createdId: '3',
    });
    // Records the sync could not store, as the API sent them: one of the person, one of someone else.
    for (const [path, who] of [
      ['data[1]', cpf],
      ['data[2]', other],
    ] as const) {
      await h.pool.query(
        `insert into ${q('rejected_records')} (connection, resource, endpoint, company_cnpj, element_index, json_path, reason, record)
         values ('default', 'collaborators', 'collaborator', $1, 1, $2, 'name: expected a string', $3)`,
        [company, path, JSON.stringify({ national_registry: who, name: 42, email: 'someone@example.com' })],
      );
    }
  }, 300_000);

  afterAll(async () => {
    await h?.close();
  });

  it('gives every synced CPF its pseudonym', async () => {
    const { rows } = await h.pool.query(`select cpf, pseudonym from ${q('cpf_pseudonyms')} where cpf = $1`, [
      cpf,
    ]);
    expect(rows).toEqual([{ cpf, pseudonym: pseudonymOf(KEY, cpf) }]);
    const unmapped = await h.pool.query(
      `select count(*)::int as n from ${q('collaborators')} c where not exists (select 1 from ${q('cpf_pseudonyms')} p where p.cpf = c.cpf)`,
    );
    expect(unmapped.rows[0].n).toBe(0);
  });

  it('refuses bad arguments with exit 2 and a person it does not know with exit 1', async () => {
    const none = await runPunchline(['forget'], env);
    expect({ code: none.code, err: none.stderr.trim() }).toEqual({
      code: 2,
      err: 'punchline: --cpf is required (the CPF of the person to forget)',
    });
    const bad = await runPunchline(['forget', '--cpf', '123'], env);
    expect({ code: bad.code, err: bad.stderr.trim() }).toEqual({
      code: 2,
      err: 'punchline: --cpf is not a CPF (11 digits, punctuation allowed)',
    });
    const unknown = await runPunchline(['forget', '--cpf', '000.000.001-91'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/holds no row of this CPF, so there is nothing to erase \(give --company/);
  }, 60_000);

  it('erases the person: no row keeps the CPF, personal fields are null, the aggregates stay', async () => {
    const dotted = `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
    const res = await runPunchline(
      ['forget', '--cpf', dotted, '--company', company, '--by', 'dpo@example', '--note', 'LGPD-42'],
      env,
    );
    expect(res.stderr).not.toContain(KEY);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(
      new RegExp(
        `^company ${company}: erased \\d+ rows; the person is ${TOMBSTONE} in the warehouse \\(erasure 1\\)`,
      ),
    );

    expect(Object.values(await rowsWithCpf()).every((n) => n === 0)).toBe(true);
    expect(await personalLeft()).toEqual({
      collaborators: 0,
      history: 0,
      punches: 0,
      adjustments: 0,
      absences: 0,
      attachments: 0,
    });
    expect(await aggregates(TOMBSTONE)).toEqual(before);
    const pseudonym = await h.pool.query(
      `select count(*)::int as n from ${q('cpf_pseudonyms')} where cpf = $1`,
      [cpf],
    );
    expect(pseudonym.rows[0].n).toBe(0);
    // push receipts that name the person are gone (a shared absence's too); another person's stays
    const receipts = await h.pool.query(`select created_id from ${q('push_receipts')} order by created_id`);
    expect(receipts.rows).toEqual([{ created_id: '3' }]);
    const rejected = await h.pool.query(`select json_path from ${q('rejected_records')} order by 1`);
    expect(rejected.rows).toEqual([{ json_path: 'data[2]' }]);

    const register = await h.pool.query(
      `select company_cnpj, cpf, tombstone, erased_by, note, rows_erased::int, lifted_at from ${q('erasures')}`,
    );
    expect(register.rows).toEqual([
      {
        company_cnpj: company,
        cpf,
        tombstone: TOMBSTONE,
        erased_by: 'dpo@example',
        note: 'LGPD-42',
        rows_erased: Number(/erased (\d+) rows/.exec(res.stdout)![1]),
        lifted_at: null,
      },
    ]);
    // analysts still count the person's punches, under the tombstone
    const analyst = await h.pool.query(
      `select count(*)::int as n from "${h.schema}_analyst".punches where company_cnpj = $1 and cpf_pseudonym = $2 and deleted_at is null`,
      [company, TOMBSTONE],
    );
    expect(analyst.rows[0].n).toBe(before.punches);
  }, 60_000);

  it('keeps the person erased after a sync that brings all their data back', async () => {
    const register = async () =>
      (
        await h.pool.query(
          `select rows_erased::int as n, erased_at, last_applied_at from ${q('erasures')} where id = 1`,
        )
      ).rows[0];
    const was = await register();
    await resync();

    expect(await rowsWithCpf()).toEqual(Object.fromEntries(PERSON_TABLES.map((t) => [t, 0])));
    expect(await personalLeft()).toEqual({
      collaborators: 0,
      history: 0,
      punches: 0,
      adjustments: 0,
      absences: 0,
      attachments: 0,
    });
    expect(await aggregates(TOMBSTONE)).toEqual(before);
    const now = await register();
    expect(now.n).toBeGreaterThan(was.n); // the sync did bring the person back, and erased them again
    expect(now.last_applied_at.getTime()).toBeGreaterThan(now.erased_at.getTime());
    // one collaborator row, still dated from when the person was first seen
    const collaborator = await h.pool.query(
      `select first_seen_at from ${q('collaborators')} where company_cnpj = $1 and cpf = $2`,
      [company, TOMBSTONE],
    );
    expect(collaborator.rows).toEqual([{ first_seen_at: firstSeen }]);
  }, 300_000);

  it('says so when forget runs again for a standing erasure', async () => {
    const res = await runPunchline(['forget', '--cpf', cpf, '--company', company], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(
      new RegExp(
        `^company ${company}: already erased \\(erasure 1, ${TOMBSTONE}\\); 0 rows brought back since were erased`,
      ),
    );
  }, 60_000);

  it('brings the person back once the erasure is lifted and the company synced again', async () => {
    const res = await runPunchline(
      ['forget', '--lift', '--cpf', cpf, '--company', company, '--by', 'dpo@example'],
      env,
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^lifted 1 erasure: the rows kept under the tombstone have the CPF back/);
    expect(await aggregates(cpf)).toEqual(before);

    await resync();
    const person = await h.pool.query(
      `select name, email, pis from ${q('collaborators')} where company_cnpj = $1 and cpf = $2`,
      [company, cpf],
    );
    expect(person.rows[0].name).toEqual(expect.any(String));
    expect(person.rows[0].pis).toEqual(expect.any(String));
    const left = await h.pool.query(`select count(*)::int as n from ${q('punches')} where cpf = $1`, [
      TOMBSTONE,
    ]);
    expect(left.rows[0].n).toBe(0);
    const located = await h.pool.query(
      `select count(*)::int as n from ${q('punches')} where company_cnpj = $1 and cpf = $2 and latitude is not null`,
      [company, cpf],
    );
    expect(located.rows[0].n).toBe(before.punches);
    expect(await aggregates(cpf)).toEqual(before);
    const lifted = await h.pool.query(`select lifted_by, lifted_at from ${q('erasures')} where id = 1`);
    expect(lifted.rows[0]).toEqual({ lifted_by: 'dpo@example', lifted_at: expect.any(Date) });
    const again = await runPunchline(['forget', '--lift', '--cpf', cpf, '--company', company], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no standing erasure of this CPF in company ${company}`);
  }, 300_000);
});
