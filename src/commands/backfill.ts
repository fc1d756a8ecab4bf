/**
 * `punchline backfill` (docs/operations.md "Backfill"): arguments are checked before any work (exit 2),
 * Redis, the warehouse, the API and the token before anything is queued (exit 2 or 3,
 * docs/operations.md "Exit codes"); then every window is synced with progress, and a summary
 * printed (`--json`: as one JSON object). Exit 0 only when all succeeded, else 1. `--dry-run` checks the
 * same, then prints the jobs, windows and API requests it would make, and queues and writes nothing.
 */
import { EXIT, type CommandContext } from './context.js';
import { assertRedisReachable } from '../probes/services.js';
import { JOBS } from '../../jobs/index.js';
import { parseBackfillArgs, type BackfillArgs } from '../backfill/args.js';
import type { BackfillSummary } from '../backfill/run.js';
import { formatSeconds } from '../backfill/progress.js';
import type { BackfillOptions } from '../backfill/args.js';
import { requestsOf, type BackfillPlan } from '../backfill/plan.js';
import { renderTable } from '../reports/status-format.js';
import type { Config } from '../config.js';

/** Options of `punchline backfill` beyond the range: a dry run, JSON output. */
export type BackfillCommandArgs = BackfillArgs & { dryRun?: boolean; json?: boolean };

/** One job of a dry run: what it reads and the requests it makes when nothing splits. */
export interface DryRunJob {
  readonly id: string;
  readonly resource: string;
  readonly company?: string;
  readonly from?: string;
  readonly to?: string;
  readonly requests: number | 'per item';
}

/** A dry run's report: the jobs, their requests, the windows skipped as synced. */
export interface DryRunReport {
  readonly jobs: readonly DryRunJob[];
  /** Requests of the jobs whose count is known (follow-ups make one per item on top). */
  readonly requests: number;
  readonly skipped: number;
}

/** What a plan would do, as a report (pure). */
export function dryRunReport(plan: BackfillPlan): DryRunReport {
  const jobs = plan.jobs.map((j) => ({
    id: j.id,
    resource: j.name,
    ...(j.data.company ? { company: j.data.company } : {}),
    ...(j.data.from && j.data.to ? { from: j.data.from, to: j.data.to } : {}),
    requests: requestsOf(j),
  }));
  const requests = jobs.reduce((n, j) => n + (typeof j.requests === 'number' ? j.requests : 0), 0);
  return { jobs, requests, skipped: plan.skipped };
}

/** A dry run's report as text (pure). */
export function dryRunLines(r: DryRunReport): string[] {
  const rows = r.jobs.map((j) => [
    j.resource,
    j.company ?? '-',
    j.from ? `${j.from}..${j.to}` : '-',
    String(j.requests),
  ]);
  const perItem = r.jobs.some((j) => j.requests === 'per item')
    ? ' (and one per item for each follow-up)'
    : '';
  return [
    ...(rows.length > 0 ? [renderTable(['resource', 'company', 'window', 'requests'], rows)] : []),
    `dry run: ${r.jobs.length} jobs, ${r.requests} API requests${perItem}, ${r.skipped} windows skipped as already synced; nothing queued or written`,
  ];
}

/** Plans the backfill without Redis, a queue or a write: the warehouse read, one group walk per connection. */
async function dryRun(config: Config, options: BackfillOptions): Promise<DryRunReport> {
  const [{ planBackfill }, { ApiClient }, { createWarehouse }] = await Promise.all([
    import('../backfill/plan.js'),
    import('../api/client.js'),
    import('../warehouse/db.js'),
  ]);
  const w = createWarehouse(config.databaseUrl, config.warehouseSchema, { max: 1 });
  const clients = new Map(
    options.connections.map((c) => [
      c.name,
      {
        connection: c,
        api: new ApiClient({ baseUrl: c.baseUrl, token: c.token, timeoutMs: config.apiTimeoutMs }),
      },
    ]),
  );
  try {
    const plan = await planBackfill(
      { warehouse: w, client: (name) => clients.get(name)!, now: () => new Date() },
      options,
    );
    return dryRunReport(plan);
  } finally {
    await Promise.all([...clients.values()].map((c) => c.api.close()));
    await w.close();
  }
}

/** The summary lines printed at the end of a backfill (pure). */
export function summaryLines(s: BackfillSummary): string[] {
  const lines = [
    `backfill ${s.interrupted ? 'interrupted' : s.failed > 0 ? 'finished with failures' : 'finished'} in ${formatSeconds(s.durationMs / 1000)}: ` +
      `${s.succeeded} of ${s.total} jobs succeeded, ${s.failed} failed, ${s.skipped} windows skipped as already synced`,
    `rows: ${s.inserted} inserted, ${s.updated} updated, ${s.deleted} deleted; API requests: ${s.requests}`,
  ];
  if (!s.interrupted)
    lines.push(`marts current ${formatSeconds(s.martsCatchUpMs / 1000)} after the last window`);
  for (const f of s.failures) lines.push(`failed: ${f.id}: ${f.error}`);
  if (s.interrupted)
    lines.push('queued jobs stay queued for running workers; run the same backfill again to resume');
  else if (s.failed > 0)
    lines.push('run the same backfill again to retry what failed (windows already done are skipped)');
  return lines;
}

/** Runs `punchline backfill` (or only plans it, `--dry-run`). */
export async function backfillCommand(ctx: CommandContext, opts: BackfillCommandArgs): Promise<number> {
  const options = parseBackfillArgs(opts, ctx.config);
  if (opts.dryRun) {
    const report = await dryRun(ctx.config, options);
    ctx.out.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${dryRunLines(report).join('\n')}\n`);
    return EXIT.ok;
  }
  // Loaded only after the arguments passed: a typo fails without loading BullMQ and the rest.
  const [{ runBackfill }, { barReporter, plainReporter }, { openRuntime }] = await Promise.all([
    import('../backfill/run.js'),
    import('../backfill/progress.js'),
    import('../runtime/runtime.js'),
  ]);
  await assertRedisReachable(ctx.config.redisUrl);
  const rt = await openRuntime({ config: ctx.config, logger: ctx.logger, processors: JOBS });
  const tty = (ctx.out as NodeJS.WriteStream).isTTY === true && options.progress;
  try {
    // With --json, stdout holds the summary only: progress goes to stderr.
    const reporter = opts.json
      ? plainReporter(process.stderr)
      : tty
        ? barReporter(ctx.out)
        : plainReporter(ctx.out);
    const summary = await runBackfill(rt, options, { reporter, signal: ctx.signal });
    if (opts.json) ctx.out.write(`${JSON.stringify(summary, null, 2)}\n`);
    else for (const line of summaryLines(summary)) ctx.out.write(`${line}\n`);
    return summary.failed === 0 && !summary.interrupted ? EXIT.ok : EXIT.failed;
  } finally {
    await rt.close();
  }
}
