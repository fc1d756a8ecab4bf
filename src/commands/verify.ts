/**
 * `punchline verify` (docs/operations.md "Verifying the warehouse"): runs the reconciliation checks in
 * the warehouse now, records them in `quality_checks`, prints a table (every row with `--json`) and
 * exits 1 when a check fails (not on warnings); bad arguments or an unmigrated warehouse exit 2.
 */
import { availableParallelism } from 'node:os';
import { EXIT, UsageError, type CommandContext } from './context.js';
import { companyArg, dateArg } from '../backfill/args.js';
import { assertPostgresReachable } from '../probes/services.js';
import { isMissingRelation } from '../reports/freshness.js';
import { findingsOf, formatVerify, partStatuses } from '../reports/verify-format.js';
import { openCheckPool } from '../quality/check-pool.js';
import { runQualityChecks } from '../quality/run-checks.js';
import { qualitySettingsFromConfig } from '../quality/settings.js';
import type { QualityScope } from '../quality/checks.js';
import { WarehouseNotMigratedError } from '../warehouse/errors.js';

/** Options of `punchline verify` as commander gives them. */
export type VerifyArgs = Partial<Record<'from' | 'to' | 'company' | 'json', unknown>>;

/** Checks the arguments of `punchline verify` (pure); throws {@link UsageError}. */
export function parseVerifyArgs(args: VerifyArgs): QualityScope & { readonly json: boolean } {
  const from = args.from === undefined ? undefined : dateArg('--from', args.from);
  const to = args.to === undefined ? undefined : dateArg('--to', args.to);
  if (from && to && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  const company = args.company === undefined ? undefined : companyArg(args.company);
  return {
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(company ? { company } : {}),
    json: args.json === true,
  };
}

/** Check statements `punchline verify` runs at once: a handful of passes over the tables, as many at once as this host has cores (at most 4). */
export const VERIFY_CONCURRENCY = Math.max(1, Math.min(4, availableParallelism()));

/** `punchline verify`. */
export async function verifyCommand(ctx: CommandContext, args: VerifyArgs): Promise<number> {
  const { json, ...scope } = parseVerifyArgs(args);
  const { config } = ctx;
  await assertPostgresReachable(config.databaseUrl);
  // The checks are independent statements, a connection each.
  const concurrency = VERIFY_CONCURRENCY;
  const { pool, close } = openCheckPool(config.databaseUrl, config.warehouseSchema, {
    max: concurrency,
    applicationName: 'punchline verify',
  });
  try {
    const started = Date.now();
    const run = runQualityChecks(pool, config.warehouseSchema, scope, qualitySettingsFromConfig(config), {
      concurrency,
    });
    const { findings } = await run.catch((err) => {
      throw isMissingRelation(err)
        ? new WarehouseNotMigratedError(config.warehouseSchema, { cause: err })
        : err;
    });
    const durationMs = Date.now() - started;
    const failed = [...partStatuses(findings).values()].some((p) => p.status === 'fail');
    if (json) {
      const report = {
        ...scope,
        durationMs,
        ok: !failed,
        findings: findingsOf(findings).length,
        rows: findings,
      };
      ctx.out.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      ctx.out.write(formatVerify(findings, { ...scope, durationMs }));
    }
    return failed ? EXIT.failed : EXIT.ok;
  } finally {
    await close();
  }
}
