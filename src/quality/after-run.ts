import type { Logger } from '../logger.js';
import { CATALOG, type Resource } from '../resources/index.js';
import type { QualityFinding, QualityScope, QualitySettings } from './checks.js';
import type { CheckPool } from './check-pool.js';
import { runQualityChecks } from './run-checks.js';

/** A completed run, as far as the checks care. */
export interface CompletedRun {
  readonly resource: Resource;
  /** CNPJ of the company synced; group-level runs are followed by no check. */
  readonly company?: string;
  /** The window synced, for windowed resources. */
  readonly window?: { readonly from: string; readonly to: string };
}

/**
 * The checks that follow `run` (pure; docs/warehouse.md "Reconciliation checks"): only those its data can
 * change, scoped to what it touched — its window (completeness), the months or totals periods around it
 * (agreement, consistency), its company and resource (coverage), the company's history (after the
 * collaborator list). Empty when nothing it loaded can be checked.
 */
export function checksAfter(run: CompletedRun): QualityScope[] {
  if (run.company === undefined) return [];
  const checks = CATALOG[run.resource].checks ?? [];
  const scopes: QualityScope[] = [];
  if (run.window) {
    if (checks.length > 0)
      scopes.push({ company: run.company, ...run.window, resources: [run.resource], checks });
    // Coverage over the company's whole synced range of the resource: a window closes or opens a gap anywhere.
    scopes.push({ company: run.company, resources: [run.resource], checks: ['coverage'] });
  } else if (checks.length > 0) {
    scopes.push({ company: run.company, checks });
  }
  return scopes;
}

/** Where the checks after a run report; `onError` is told when a check could not run. */
export interface AfterRunContext {
  readonly pool: CheckPool;
  readonly schema: string;
  readonly settings: QualitySettings;
  readonly logger: Logger;
  readonly onError?: (err: unknown) => void;
}

/** Runs the checks that follow `run` and returns what they found; never throws (the run's data is loaded). */
export async function checkAfterRun(ctx: AfterRunContext, run: CompletedRun): Promise<QualityFinding[]> {
  return checkAfterRuns(ctx, [run]);
}

/**
 * Runs the checks that follow each of `runs` (a check two runs share, such as a resource's
 * coverage, once, by the last of them; each finding names its run) and returns what they
 * found; never throws.
 */
export async function checkAfterRuns(
  ctx: AfterRunContext,
  runs: readonly (CompletedRun & { readonly runId?: number })[],
): Promise<QualityFinding[]> {
  const scopes = new Map<string, { scope: QualityScope; runId?: number }>();
  for (const run of runs)
    for (const scope of checksAfter(run))
      scopes.set(JSON.stringify(scope), { scope, ...(run.runId === undefined ? {} : { runId: run.runId }) });
  const found: QualityFinding[] = [];
  for (const { scope, runId } of scopes.values()) {
    const settings = runId === undefined ? ctx.settings : { ...ctx.settings, runId };
    try {
      found.push(...(await runQualityChecks(ctx.pool, ctx.schema, scope, settings)).findings);
    } catch (err) {
      ctx.onError?.(err);
      ctx.logger.error(
        { err, checks: scope.checks },
        'quality checks after the run failed; the run stands, punchline verify runs them again',
      );
    }
  }
  const failing = found.filter((f) => f.status !== 'ok' && f.scope !== 'all');
  if (failing.length > 0) {
    // Counts and where, never a CPF: logs are not the place for personal data. Info, not
    // warn: a backfill opens gaps until its last window is in; quality_status, the gauges
    // and the alert say what stays.
    const { check, part, scope, difference, status } = failing[0]!;
    ctx.logger.info(
      { findings: failing.length, first: { check, part, scope, difference, status } },
      'quality checks found disagreements (see quality_status)',
    );
  }
  return found;
}
