/**
 * `punchline verify [--from D] [--to D] [--company CNPJ] [--json]` (docs/operations.md
 * "Verifying the warehouse"): runs the reconciliation checks inside the warehouse now,
 * records their outcome in `quality_checks`, prints a short table (or every row with
 * `--json`) and exits 1 when a check fails. Warnings do not fail it. Bad arguments and
 * an unmigrated warehouse exit 2 (docs/operations.md "Exit codes").
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
export interface VerifyArgs {
  from?: unknown;
  to?: unknown;
  company?: unknown;
  json?: unknown;
}

/** Checks the arguments of `punchline verify` (pure); throws {@link UsageError}. */
export function parseVerifyArgs(args: VerifyArgs): QualityScope & { readonly json: boolean } {
  const from = args.from === undefined ? undefined : dateArg('--from', args.from);
  const to = args.to === undefined ? undefined : dateArg('--to', args.to);
  if (from && to && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  const company = args.company === undefined ? undefined : companyArg(args.company);
  return { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(company ? { company } : {}), json: args.json === true };
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
  const { pool, close } = openCheckPool(config.databaseUrl, config.warehouseSchema, { max: concurrency, applicationName: 'punchline verify' });
  try {
    const started = Date.now();
    let findings;
    try {
      ({ findings } = await runQualityChecks(pool, config.warehouseSchema, scope, qualitySettingsFromConfig(config), { concurrency }));
    } catch (err) {
      if (isMissingRelation(err)) throw new WarehouseNotMigratedError(config.warehouseSchema, { cause: err });
      throw err;
    }
    const durationMs = Date.now() - started;
    const failed = [...partStatuses(findings).values()].some((p) => p.status === 'fail');
    if (json) {
      const report = { ...scope, durationMs, ok: !failed, findings: findingsOf(findings).length, rows: findings };
      ctx.out.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      ctx.out.write(formatVerify(findings, { ...scope, durationMs }));
    }
    return failed ? EXIT.failed : EXIT.ok;
  } finally {
    await close();
  }
}
