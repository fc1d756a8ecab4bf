import { QUALITY_CHECKS, type QualityStatus } from '../quality/checks.js';
import type { NotNull } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { unlessMissing } from './freshness.js';

/** A scope that is not ok, to start with. */
export interface QualityExample {
  readonly company: string;
  readonly part: string;
  readonly scope: string;
  readonly status: QualityStatus;
  /** What the difference is about. */
  readonly detail: string | null;
}

/** The standing outcome of one check (`quality_status`, docs/warehouse.md "Reconciliation checks"). */
export interface QualitySummary {
  /** quality_checks.check_name. */
  readonly check: string;
  /** Parts of the warehouse by the worst status of their latest run. */
  readonly parts: Readonly<Record<QualityStatus, number>>;
  /** Scopes (collaborators, days, gaps, tables) that are not ok. */
  readonly findings: number;
  /** When the check last ran on any part (ISO 8601). */
  readonly lastCheckedAt: string;
  /** The most recent scope of the worst status, when one is not ok. */
  readonly example?: QualityExample;
}

/** The standing rows of `quality_status` ranked by status (ok 0, warn 1, fail 2), and the worst rank of each part. */
function qualityStatusQuery(pool: SqlRunner, schema: string) {
  return warehouseDb(pool, schema)
    .with('ranked', (db) =>
      db
        .selectFrom('quality_status')
        .select(['check_name', 'company_cnpj', 'part', 'scope', 'status', 'detail', 'checked_at'])
        .select((eb) => eb.case('status').when('fail').then(2).when('warn').then(1).else(0).end().as('rank'))
        .$narrowType<{
          check_name: NotNull;
          company_cnpj: NotNull;
          part: NotNull;
          scope: NotNull;
          status: QualityStatus;
          checked_at: NotNull;
        }>(),
    )
    .with('parts', (db) =>
      db
        .selectFrom('ranked')
        .select((eb) => [
          'check_name',
          'company_cnpj',
          'part',
          eb.fn.max('rank').as('worst'),
          eb.fn.max('checked_at').as('checked_at'),
        ])
        .groupBy(['check_name', 'company_cnpj', 'part']),
    )
    .selectFrom('parts as p')
    .select((eb) => {
      const parts = (rank: number) =>
        eb.cast<number>(eb.fn.countAll().filterWhere('worst', '=', rank), 'integer');
      const notOk = eb
        .selectFrom('ranked as r')
        .whereRef('r.check_name', '=', 'p.check_name')
        .where('r.rank', '>', 0);
      return [
        'p.check_name as check',
        parts(0).as('ok'),
        parts(1).as('warn'),
        parts(2).as('fail'),
        eb.fn.max('p.checked_at').as('last_checked_at'),
        notOk
          .where('r.scope', '<>', 'all')
          .select((e) => e.cast<number>(e.fn.countAll(), 'integer').as('n'))
          .$asScalar()
          .as('findings'),
        notOk
          .select((e) =>
            jsonBuildObject({
              company: e.ref('r.company_cnpj'),
              part: e.ref('r.part'),
              scope: e.ref('r.scope'),
              status: e.ref('r.status'),
              detail: e.ref('r.detail'),
            }).as('o'),
          )
          .orderBy('r.rank', 'desc')
          .orderBy((e) => e('r.scope', '=', 'all'))
          .orderBy('r.checked_at', 'desc')
          .orderBy('r.company_cnpj')
          .orderBy('r.part')
          .orderBy('r.scope')
          .limit(1)
          .$asScalar()
          .as('example'),
      ];
    })
    .groupBy('p.check_name')
    .orderBy('p.check_name');
}

/** Reads the outcome of every check that ran; null when the warehouse has no `quality_status` yet. */
export async function readQualityStatus(pool: SqlRunner, schema: string): Promise<QualitySummary[] | null> {
  const rows = await unlessMissing(qualityStatusQuery(pool, schema).execute());
  const order = (check: string) => (QUALITY_CHECKS as readonly string[]).indexOf(check) >>> 0;
  return (
    rows &&
    rows
      .sort((a, b) => order(a.check) - order(b.check))
      .map((r) => ({
        check: r.check,
        parts: { ok: r.ok, warn: r.warn, fail: r.fail },
        findings: r.findings ?? 0,
        lastCheckedAt: r.last_checked_at.toISOString(),
        ...(r.example ? { example: r.example } : {}),
      }))
  );
}
