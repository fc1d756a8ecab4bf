/**
 * Open rejected records (`rejected_records` with no `resolved_at`): records an answer held
 * that the sync could not store, summed per resource and endpoint for `punchline status`
 * and `/metrics`. A later sync that receives a valid record resolves it, so an open one is
 * either still wrong at the source or not re-read since.
 */
import { isMissingRelation, type QueryablePool } from './freshness.js';
import { quoteIdent } from '../warehouse/db.js';

/** The oldest open rejection of a group: enough to find it and to re-read its window. */
export interface RejectionExample {
  /** CNPJ of the company. */
  readonly company: string;
  /** Window read (`from..to`), absent for lists without a window. */
  readonly window?: string;
  /** Where it sat in the answer, e.g. `data[3].days[12].points[1]`. */
  readonly path: string;
  /** The field and the problem. */
  readonly reason: string;
}

/** Open rejections of one resource and endpoint. */
export interface RejectionSummary {
  /** Resource synced (as in `--resources`). */
  readonly resource: string;
  /** Endpoint that answered them. */
  readonly endpoint: string;
  /** Records still rejected. */
  readonly open: number;
  /** Companies they belong to. */
  readonly companies: number;
  /** When the oldest was first rejected (ISO 8601). */
  readonly oldest: string;
  /** When a sync last rejected one of them (ISO 8601). */
  readonly latest: string;
  /** The oldest of them. */
  readonly example: RejectionExample;
}

/** The query of {@link readOpenRejections}. */
function buildOpenRejectionsQuery(schema: string): string {
  return `select resource, endpoint, count(*)::int as open, count(distinct company_cnpj)::int as companies,
                 min(first_rejected_at) as oldest, max(last_rejected_at) as latest,
                 (array_agg(json_build_object('company', company_cnpj, 'from', window_start, 'to', window_end, 'path', json_path, 'reason', reason)
                   order by first_rejected_at, id))[1] as example
            from ${quoteIdent(schema)}.rejected_records where resolved_at is null
           group by resource, endpoint order by resource, endpoint`;
}

const iso = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();

/** Reads the open rejections per resource and endpoint; null when the warehouse has no `rejected_records` yet. */
export async function readOpenRejections(pool: QueryablePool, schema: string): Promise<RejectionSummary[] | null> {
  try {
    const { rows } = await pool.query(buildOpenRejectionsQuery(schema));
    type Row = {
      resource: string;
      endpoint: string;
      open: number;
      companies: number;
      oldest: Date | string;
      latest: Date | string;
      example: { company: string; from: string | null; to: string | null; path: string; reason: string };
    };
    return (rows as Row[]).map((r) => ({
      resource: r.resource,
      endpoint: r.endpoint,
      open: r.open,
      companies: r.companies,
      oldest: iso(r.oldest),
      latest: iso(r.latest),
      example: {
        company: r.example.company,
        ...(r.example.from && r.example.to ? { window: `${r.example.from}..${r.example.to}` } : {}),
        path: r.example.path,
        reason: r.example.reason,
      },
    }));
  } catch (err) {
    if (isMissingRelation(err)) return null;
    throw err;
  }
}
