import { sql } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { unlessMissing } from './freshness.js';

/** The oldest open rejection of a group: enough to find it and to re-read its window. */
export interface RejectionExample {
  readonly company: string;
  /** Window read (`from..to`), absent for lists without a window. */
  readonly window?: string;
  /** Where it sat in the answer, e.g. `data[3].days[12].points[1]`. */
  readonly path: string;
  /** The field and the problem. */
  readonly reason: string;
}

/**
 * Open rejections (records an answer held that the sync could not store) of one resource and endpoint.
 * A later sync that receives a record valid resolves it: an open one is still wrong at the source, or
 * not re-read since.
 */
export interface RejectionSummary {
  /** Resource synced (as in `--resources`) and the endpoint that answered them. */
  readonly resource: string;
  readonly endpoint: string;
  /** Records still rejected, and the companies they belong to. */
  readonly open: number;
  readonly companies: number;
  /** When the oldest was first rejected, and when a sync last rejected one of them (ISO 8601). */
  readonly oldest: string;
  readonly latest: string;
  /** The oldest of them. */
  readonly example: RejectionExample;
}

/** Reads the open rejections per resource and endpoint; null when the warehouse has no `rejected_records` yet. */
export async function readOpenRejections(
  pool: SqlRunner,
  schema: string,
): Promise<RejectionSummary[] | null> {
  const query = warehouseDb(pool, schema)
    .selectFrom('rejected_records')
    .where('resolved_at', 'is', null)
    .groupBy(['resource', 'endpoint'])
    .orderBy('resource')
    .orderBy('endpoint')
    .select((eb) => {
      const { ref } = eb;
      const record = jsonBuildObject({
        company: ref('company_cnpj'),
        from: ref('window_start'),
        to: ref('window_end'),
        path: ref('json_path'),
        reason: ref('reason'),
      });
      const oldestFirst = eb.fn
        .agg<(typeof record.expressionType)[]>('array_agg', [record])
        .orderBy('first_rejected_at')
        .orderBy('id');
      return [
        'resource',
        'endpoint',
        eb.cast<number>(eb.fn.countAll(), 'integer').as('open'),
        eb.cast<number>(eb.fn.count('company_cnpj').distinct(), 'integer').as('company_count'),
        eb.fn.min('first_rejected_at').as('oldest'),
        eb.fn.max('last_rejected_at').as('latest'),
        sql<NonNullable<typeof record.expressionType>>`(${oldestFirst})[1]`.as('example'),
      ];
    });
  const rows = await unlessMissing(query.execute());
  return (
    rows &&
    rows.map(({ resource, endpoint, open, company_count, oldest, latest, example: e }) => ({
      resource,
      endpoint,
      open,
      companies: company_count,
      oldest: oldest.toISOString(),
      latest: latest.toISOString(),
      example: {
        company: e.company,
        ...(e.from && e.to ? { window: `${e.from}..${e.to}` } : {}),
        path: e.path,
        reason: e.reason,
      },
    }))
  );
}
