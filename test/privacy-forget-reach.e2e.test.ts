/**
 * `punchline forget` reaches everything, end to end. A month of a small group is synced
 * from the emulator with the person's CPF sent without its leading zeros and one of their
 * punches broken (a record the sync rejects, salvaged out of their element: it holds no
 * CPF). The person adjusts someone else's punch, as a manager, and the sync stores their
 * name there. Older traces are planted where earlier versions left them: rejected records
 * with the CPF as a JSON number, formatted, or the person as another's approver; a push
 * receipt; a run's error and a check's detail quoting them; a failed job and an alert in
 * Redis. After `punchline forget` (the CLI), every text, JSON and array column of every
 * table of the schema, and every key under the queue prefix, is searched for every form of
 * the CPF and for the name: nothing. A sync that brings it all back leaves nothing either.
 */
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill } from '../src/backfill/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { recordReceipt } from './support/push-receipts.js';
import { callAdmin } from './support/emulator-http.js';
import { columnsMatching, redisDump } from './support/dumps.js';
import { TEST_REDIS_URL } from './support/isolation.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';

const TODAY = '2026-10-31';
const FROM = '2026-09-01';
const TO = '2026-09-30';
const KEY = 'forget-reach-pseudonym-key-6c2a91f0e4';

/** `12345678909` as `123.456.789-09`. */
const formatted = (cpf: string): string =>
  `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('punchline forget reaches everything', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let env: Record<string, string>;
  let branch: string;
  let cpf: string;
  let unpadded: string;
  let name: string;
  let adjusted: number;
  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];

  /** Every form of the CPF and the name, as a Postgres and a JavaScript pattern. */
  function forms(): { pg: string; js: RegExp } {
    const digits = [cpf, unpadded].map((d) => `(?<![0-9])${d}(?![0-9])`);
    const pg = [...digits, escapeRe(formatted(cpf)), `(?<![[:alnum:]])${escapeRe(name)}(?![[:alnum:]])`].join(
      '|',
    );
    const js = new RegExp(
      [...digits, escapeRe(formatted(cpf)), `(?<![\\p{L}\\p{N}])${escapeRe(name)}(?![\\p{L}\\p{N}])`].join(
        '|',
      ),
      'iu',
    );
    return { pg, js };
  }

  /** Where the person still is: warehouse columns (the register of erasures aside) and Redis keys. */
  async function traces(): Promise<{ warehouse: string[]; redis: string[] }> {
    const { pg, js } = forms();
    const warehouse = await columnsMatching(h.pool, h.schema, pg, ['erasures']);
    const redis = (await redisDump(h.redis, h.prefix))
      .split('\n')
      .filter((line) => js.test(line))
      .map((line) => line.slice(0, 200));
    return { warehouse, redis };
  }

  async function sync(resources: string): Promise<void> {
    const summary = await runBackfill(
      rt,
      parseBackfillArgs({ from: FROM, to: TO, resources, company: branch, force: true }, rt.config),
      { pollMs: 200 },
    );
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
  }

  beforeAll(async () => {
    h = await startHarness('forgetall', { today: TODAY, quirks: ['unpaddedCpf'] });
    env = h.env({ PSEUDONYM_KEY: KEY });
    rt = await h.runtime({ PSEUDONYM_KEY: KEY });
    branch = h.emulator.companies[1]!.cnpj;
    // The broken punch sits in the answer's second element: the first branch's second collaborator, whose CPF is sent unpadded.
    h.emulator.queueFault({ kind: 'corrupt', endpoint: 'point/getFromPeriod', company: branch });
    const first = await runBackfill(
      rt,
      parseBackfillArgs(
        { from: FROM, to: TO, resources: 'companies,collaborators,punches,adjustments' },
        rt.config,
      ),
      {
        pollMs: 200,
      },
    );
    expect(first.failed, JSON.stringify(first.failures)).toBe(0);

    const [rejection] = await q<{ cpf: string; record: Record<string, unknown> }>(
      `select cpf, record from $S.rejected_records where endpoint = 'point/getFromPeriod'`,
    );
    cpf = rejection!.cpf;
    unpadded = cpf.replace(/^0+/, '');
    // The salvaged punch names nobody: only the column the sync now keeps with it does.
    expect(JSON.stringify(rejection!.record)).not.toContain(unpadded);
    expect(
      h.emulator.truth.collaborators(branch).find((c) => c.national_registry === cpf)?.sentNationalRegistry,
    ).toBe(unpadded);
    expect(unpadded.length).toBe(9);
    [{ name }] = await q<{ name: string }>(
      `select name from $S.collaborators where company_cnpj = $1 and cpf = $2`,
      [branch, cpf],
    );

    // The person, as a manager, adjusts someone else's punch: the API names them on it from now on.
    const [other] = await q<{ point_id: string; work_date: string }>(
      `select point_id::text, work_date::text from $S.punches where company_cnpj = $1 and cpf <> $2 and not is_adjusted order by point_id limit 1`,
      [branch, cpf],
    );
    adjusted = Number(other!.point_id);
    const moved = await callAdmin(h.emulator, 'mutations/adjust-punch', {
      point_id: adjusted,
      datetime: `${other!.work_date} 10:17:00`,
      reason: `Autorizado por ${name}`,
      adjusted_by: name,
    });
    expect(moved.status).toBe(200);
    await sync('punches,adjustments');
    expect(await q(`select adjusted_by from $S.punches where point_id = $1`, [adjusted])).toEqual([
      { adjusted_by: name },
    ]);

    // What earlier versions and other paths left behind.
    const plant = (path: string, record: unknown, reason = 'datetime: expected a date-time') =>
      h.pool.query(
        `insert into "${h.schema}".rejected_records (connection, resource, endpoint, company_cnpj, element_index, json_path, reason, record)
         values ('default', 'punches', 'point/getFromPeriod', $1, 0, $2, $3, $4)`,
        [branch, path, reason, JSON.stringify(record)],
      );
    await plant('data[7]', { national_registry: Number(cpf), days: [] });
    await plant('data[8]', { note: `CPF ${formatted(cpf)}`, days: [] });
    await plant('data[9]', {
      national_registry: '98765432100',
      adjustments: [{ approved_by: name.toUpperCase(), status: 'Aprovado' }],
    });
    await plant('data[10]', { national_registry: '98765432100', days: [{ date: '2026-09-02' }] });
    await recordReceipt(h.pool, h.schema, {
      company: branch,
      connection: 'default',
      file: 'push.csv',
      line: 2,
      kind: 'punches',
      key: `${cpf}|2026-09-04 08:00:00`,
      createdId: '1',
    });
    await h.pool.query(
      `insert into "${h.schema}".sync_runs (job_id, connection, resource, company_cnpj, status, attempt, requests, rows_inserted, rows_updated, rows_deleted, started_at, worker, error)
       values ('old', 'default', 'punches', $1, 'failed', 1, 1, 0, 0, 0, now(), 'w', $2)`,
      [branch, `point/getFromPeriod: data[3] (collaborator ${cpf}, ${name}) belongs to company 0`],
    );
    await h.pool.query(
      `insert into "${h.schema}".quality_checks (check_name, company_cnpj, part, scope, measure, status, detail) values ('coverage', $1, 'punches', 'all', 'rows', 'warn', $2)`,
      [branch, `missing days of ${name} (${formatted(cpf)})`],
    );
    // A failed job of an earlier version, with its data, reason and stack, and its event; an alert.
    const queue = new Queue('legacy', { connection: { url: TEST_REDIS_URL }, prefix: h.prefix });
    await queue.add('x', { note: `CPF ${formatted(cpf)}`, cpf: Number(cpf), who: name }, { attempts: 1 });
    const worker = new Worker(
      'legacy',
      async () => {
        throw new Error(`collaborator ${cpf} (${name}) belongs to another company`);
      },
      { connection: { url: TEST_REDIS_URL }, prefix: h.prefix },
    );
    await new Promise<void>((resolve) => worker.once('failed', () => resolve()));
    await worker.close();
    await queue.close();
    await h.redis.hset(
      `${h.prefix}:notify:condition:job_failed|default|${branch}|punches`,
      'fields',
      JSON.stringify({ condition: 'job_failed', detail: `job failed for ${name} ${cpf}` }),
    );

    const before = await traces();
    expect(before.warehouse.length).toBeGreaterThan(8);
    expect(before.redis.length).toBeGreaterThan(2);
  }, 300_000);

  afterAll(async () => {
    await h?.close();
  });

  it('leaves no form of the CPF and not the name in any table or Redis key', async () => {
    const res = await runPunchline(['forget', '--cpf', formatted(cpf), '--by', 'dpo@example'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(
      new RegExp(`^company ${branch}: erased \\d+ rows; the person is erased-\\d+ in the warehouse`, 'm'),
    );
    expect(res.stdout).toMatch(/^Redis \(prefix .+\): [1-9]\d* values that named the person erased$/m);
    expect(res.stderr).not.toContain(cpf);

    expect(await traces()).toEqual({ warehouse: [], redis: [] });
  }, 120_000);

  it('keeps what is not the person: the adjusted punch under the tombstone as its author, another person’s rejected record', async () => {
    const [{ tombstone }] = await q<{ tombstone: string }>(
      `select tombstone from $S.erasures where company_cnpj = $1`,
      [branch],
    );
    expect(
      await q(`select adjusted_by, adjustment_reason from $S.punches where point_id = $1`, [adjusted]),
    ).toEqual([{ adjusted_by: tombstone, adjustment_reason: `Autorizado por ${tombstone}` }]);
    expect(
      await q(`select json_path from $S.rejected_records where company_cnpj = $1 order by json_path`, [
        branch,
      ]),
    ).toEqual([{ json_path: 'data[10]' }]);
    // The failed job is still there, its texts erased.
    const failed = await h.redis.hget(`${h.prefix}:legacy:1`, 'failedReason');
    expect(failed).toBe(`collaborator ${tombstone} (${tombstone}) belongs to another company`);
    expect(JSON.parse((await h.redis.hget(`${h.prefix}:legacy:1`, 'data'))!)).toEqual({
      note: `CPF ${tombstone}`,
      cpf: tombstone,
      who: tombstone,
    });
  });

  it('leaves nothing either after a sync that brings the person back, as themselves and as a manager', async () => {
    h.emulator.queueFault({ kind: 'corrupt', endpoint: 'point/getFromPeriod', company: branch });
    await sync('collaborators,punches,adjustments');
    // The API did send them again.
    expect(h.emulator.queuedFaults()).toEqual([]);
    const [{ rows }] = await q<{ rows: number }>(
      `select rows_erased::int as rows from $S.erasures where company_cnpj = $1`,
      [branch],
    );
    expect(rows).toBeGreaterThan(0);
    expect(await traces()).toEqual({ warehouse: [], redis: [] });
    const [{ tombstone }] = await q<{ tombstone: string }>(
      `select tombstone from $S.erasures where company_cnpj = $1`,
      [branch],
    );
    expect(await q(`select adjusted_by from $S.punches where point_id = $1`, [adjusted])).toEqual([
      { adjusted_by: tombstone },
    ]);
  }, 300_000);
});
