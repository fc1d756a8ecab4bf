/**
 * `punchline marts rebuild` (docs/operations.md "Rebuilding the marts"): rewrites the marts
 * of every company (or one, over some days) from the warehouse's own tables, calling no
 * API, with a progress bar on a terminal. It records the request as pending changes
 * (`request_marts_rebuild`, sql/042), then takes in each company's pending changes here,
 * one transaction per company, as the worker's follow-up would. Exit 0 when every company
 * was rebuilt; bad arguments or an unmigrated warehouse exit 2.
 */
import cliProgress from 'cli-progress';
import { EXIT, UsageError, type CommandContext } from './context.js';
import { companyArg, dateArg } from '../backfill/args.js';
import { formatSeconds } from '../backfill/progress.js';
import { assertPostgresReachable } from '../probes/services.js';
import { isMissingRelation } from '../reports/freshness.js';
import { catchUpMarts, DEFAULT_ZONE } from '../runtime/marts-job.js';
import { createWarehouse, quoteIdent } from '../warehouse/db.js';
import { WarehouseNotMigratedError } from '../warehouse/errors.js';

/** Options of `punchline marts rebuild` as commander gives them. */
export type MartsRebuildArgs = Partial<Record<'company' | 'from' | 'to' | 'progress', unknown>>;

/** What to rebuild (pure); throws {@link UsageError}. */
export function parseMartsRebuildArgs(args: MartsRebuildArgs): {
  company?: string;
  from?: string;
  to?: string;
} {
  const from = args.from === undefined ? undefined : dateArg('--from', args.from);
  const to = args.to === undefined ? undefined : dateArg('--to', args.to);
  if (from && to && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  const company = args.company === undefined ? undefined : companyArg(args.company);
  return { ...(company ? { company } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

/** `punchline marts rebuild`. */
export async function martsRebuildCommand(ctx: CommandContext, args: MartsRebuildArgs): Promise<number> {
  const { company, from, to } = parseMartsRebuildArgs(args);
  const { config, out } = ctx;
  await assertPostgresReachable(config.databaseUrl);
  const warehouse = createWarehouse(config.databaseUrl, config.warehouseSchema, {
    max: 1,
    applicationName: 'punchline marts rebuild',
  });
  const s = quoteIdent(config.warehouseSchema);
  try {
    const notMigrated = (err: unknown) => {
      throw isMissingRelation(err) || (err as { code?: string }).code === '42883'
        ? new WarehouseNotMigratedError(config.warehouseSchema, { cause: err })
        : err;
    };
    await warehouse.pool
      .query(`SELECT ${s}.request_marts_rebuild($1, $2, $3)`, [company ?? null, from ?? null, to ?? null])
      .catch(notMigrated);
    const companies = await warehouse.pool.query<{ company: string; zone: string | null }>(
      `SELECT DISTINCT p.company_cnpj AS company, c.time_zone AS zone
         FROM ${s}.pending_changes p LEFT JOIN ${s}.companies c ON c.cnpj = p.company_cnpj
        WHERE $1::text IS NULL OR p.company_cnpj = $1 ORDER BY 1`,
      [company ?? null],
    );
    if (companies.rows.length === 0) {
      out.write('nothing to rebuild: no company has synced data in that range\n');
      return EXIT.ok;
    }
    const started = Date.now();
    const progress = rebuildProgress(out, args.progress !== false, companies.rows.length);
    let days = 0;
    for (const [i, c] of companies.rows.entries()) {
      if (ctx.signal.aborted) break;
      const zone = c.zone ?? config.connections[0]?.timezone ?? DEFAULT_ZONE;
      const done = await catchUpMarts(warehouse, new Date(), c.company, zone);
      days += done?.stats.days ?? 0;
      progress.update(i + 1, c.company);
    }
    progress.stop();
    const seconds = formatSeconds((Date.now() - started) / 1000);
    if (ctx.signal.aborted) {
      out.write(`marts rebuild interrupted after ${seconds}; what is left stays pending for the worker\n`);
      return EXIT.failed;
    }
    out.write(
      `rebuilt the marts of ${companies.rows.length} companies in ${seconds}: ${days} rows written\n`,
    );
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}

/** A cli-progress bar on a terminal, else a line per company. */
function rebuildProgress(out: NodeJS.WritableStream, wanted: boolean, total: number) {
  if (!wanted || (out as NodeJS.WriteStream).isTTY !== true)
    return {
      update: (done: number, company: string) => out.write(`marts rebuild: ${done}/${total} (${company})\n`),
      stop: () => undefined,
    };
  const bar = new cliProgress.SingleBar(
    {
      stream: out as NodeJS.WriteStream,
      format: 'marts rebuild [{bar}] {value}/{total} companies | {company}',
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { company: '' });
  return {
    update: (done: number, company: string) => bar.update(done, { company }),
    stop: () => bar.stop(),
  };
}
