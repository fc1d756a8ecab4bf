/**
 * `punchline backfill` (docs/operations.md "Backfill"): arguments are checked before any work (exit 2),
 * Redis, the warehouse, the API and the token before anything is queued (exit 2 or 3,
 * docs/operations.md "Exit codes"); then every window is synced with progress, and a summary
 * printed. Exit 0 only when all succeeded, else 1.
 */
import { EXIT, type CommandContext } from './context.js';
import { assertRedisReachable } from '../probes/services.js';
import { JOBS } from '../../jobs/index.js';
import { parseBackfillArgs, type BackfillArgs } from '../backfill/args.js';
import type { BackfillSummary } from '../backfill/run.js';
import { formatSeconds } from '../backfill/progress.js';

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

/** Runs `punchline backfill`. */
export async function backfillCommand(ctx: CommandContext, opts: BackfillArgs): Promise<number> {
  const options = parseBackfillArgs(opts, ctx.config);
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
    const summary = await runBackfill(rt, options, {
      reporter: tty ? barReporter(ctx.out) : plainReporter(ctx.out),
      signal: ctx.signal,
    });
    for (const line of summaryLines(summary)) ctx.out.write(`${line}\n`);
    return summary.failed === 0 && !summary.interrupted ? EXIT.ok : EXIT.failed;
  } finally {
    await rt.close();
  }
}
