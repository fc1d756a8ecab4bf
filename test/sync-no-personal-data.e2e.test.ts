/**
 * No personal data in error text, end to end. A `punchline worker` process (logging at
 * `trace`, alerting a local webhook) syncs a month of a group whose source has every
 * quirk of real data and some transient faults, and meets: a collaborator block naming
 * another company (the window fails for good, spec 1.4 rule 4), an answer holding a key
 * twice (a unique-key conflict of a straight copy, whose Postgres detail quotes the key),
 * and broken records (rejected with their reasons). Then every place an error's text
 * ends up is read back — `sync_runs.error`, the reasons of rejected records, the details
 * of the quality checks, every key under the queue prefix in Redis (BullMQ's failure
 * reasons and stack traces, events, alerts), the worker's log and every webhook body —
 * and none holds a CPF of the data set, in any form, or a collaborator's name.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { redisDump } from './support/dumps.js';
import { startHarness, type Harness } from './sync-harness.js';
import { startWorkerProcess, type WorkerProcess } from './ops-harness.js';

const TODAY = '2026-10-31';
const FROM = '2026-09-01';
const TO = '2026-09-30';
const KEY = 'no-personal-data-pseudonym-key-31c9d7a2';

describe('error texts of a sync that meets faults and quirks', () => {
  let h: Harness;
  let worker: WorkerProcess;
  let receiver: Server;
  let summary: BackfillSummary;
  const bodies: string[] = [];
  let hq: string;

  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];

  beforeAll(async () => {
    h = await startHarness('nopersonal', {
      today: TODAY,
      quirks: true,
      faults: { error500: 0.03, drop: 0.02 },
    });
    hq = h.emulator.companies[0]!.cnpj;
    const [branch1, branch2] = [h.emulator.companies[1]!.cnpj, h.emulator.companies[2]!.cnpj];
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += String(d)));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    worker = await startWorkerProcess(h, ['--no-schedules'], {
      LOG_LEVEL: 'trace',
      PSEUDONYM_KEY: KEY,
      NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`,
    });
    h.emulator.queueFault({ kind: 'foreign-company', endpoint: 'point/getFromPeriod', company: hq });
    h.emulator.queueFault({ kind: 'repeat', endpoint: 'collaborator/totalHours', company: branch1 });
    h.emulator.queueFault({ kind: 'corrupt', endpoint: 'point/getFromPeriod', company: branch2 });
    h.emulator.queueFault({ kind: 'corrupt', endpoint: 'adjustment', company: branch1 });
    // The jobs run in the worker process (the one that alerts); this process only queues and follows them.
    const rt = await h.runtime({ PSEUDONYM_KEY: KEY });
    summary = await runBackfill(
      rt,
      parseBackfillArgs(
        {
          from: FROM,
          to: TO,
          resources: 'companies,lookups,collaborators,punches,hour_totals,tardiness,adjustments',
        },
        rt.config,
      ),
      { pollMs: 250, work: false },
    );
    const deadline = Date.now() + 30_000;
    while (!bodies.some((b) => b.includes('"job_failed"')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    await worker.stop();
  }, 300_000);

  afterAll(async () => {
    await worker?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
    await h?.close();
  });

  it('meets what it was meant to: a company mismatch failed for good and alerted, a key conflict, rejected records', async () => {
    expect(summary.failed).toBe(1);
    expect(summary.failures[0]!.error).toMatch(
      /^point\/getFromPeriod: data\[\d+\] \(collaborator [0-9a-f]{20}\) belongs to company \d{14}, but company \d{14} was asked for/,
    );
    expect(bodies.filter((b) => b.includes('"job_failed"'))).toHaveLength(1);
    expect(worker.stderr()).toMatch(/a row copied straight in met an existing key/);
    expect(
      (await q<{ n: number }>(`select count(*)::int as n from $S.rejected_records`))[0]!.n,
    ).toBeGreaterThan(1);
    expect(
      await q(
        `select error from $S.sync_runs where error like '%company_mismatch%' or error like '%belongs to company%'`,
      ),
    ).not.toEqual([]);
  });

  it('holds no CPF of the data set, in any form, and no name, in any text an error reaches', async () => {
    const people = h.emulator.companies.flatMap((c) => h.emulator.truth.collaborators(c.cnpj));
    expect(people.length).toBeGreaterThanOrEqual(8);
    const cpfs = new Set(people.flatMap((p) => [p.national_registry, p.sentNationalRegistry]));
    const dotted = new Set(
      people.map((p) => p.national_registry.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4')),
    );
    const names = new Set(
      people.map((p) => p.name).filter((n): n is string => typeof n === 'string' && n.length > 0),
    );
    expect(names.size).toBeGreaterThanOrEqual(8);

    const places: Record<string, string> = {
      'sync_runs.error': (
        await q<{ error: string }>(`select error from $S.sync_runs where error is not null`)
      )
        .map((r) => r.error)
        .join('\n'),
      'rejected_records.reason': (await q<{ reason: string }>(`select reason from $S.rejected_records`))
        .map((r) => r.reason)
        .join('\n'),
      'quality_checks.detail': (
        await q<{ t: string }>(`select concat_ws(' ', part, scope, detail) as t from $S.quality_checks`)
      )
        .map((r) => r.t)
        .join('\n'),
      schema_drift: (await q<{ t: string }>(`select concat_ws(' ', field, value) as t from $S.schema_drift`))
        .map((r) => r.t)
        .join('\n'),
      redis: await redisDump(h.redis, h.prefix),
      'worker log': worker.stderr(),
      'backfill summary': JSON.stringify(summary.failures),
      webhook: bodies.join('\n'),
    };
    expect(places.redis).toMatch(/failedReason/);
    expect(places['sync_runs.error']).not.toBe('');
    const found: string[] = [];
    for (const [place, text] of Object.entries(places)) {
      for (const cpf of cpfs)
        if (new RegExp(`(?<![0-9])${cpf}(?![0-9])`).test(text))
          found.push(`CPF ${cpf.slice(0, 3)}… in ${place}`);
      for (const d of dotted) if (text.includes(d)) found.push(`CPF ${d.slice(0, 3)}… in ${place}`);
      for (const n of names) if (text.includes(n)) found.push(`name ${n.split(' ')[0]}… in ${place}`);
    }
    expect(found).toEqual([]);
  });
});
