/**
 * `punchline push` (docs/push.md): arguments and every row are checked before any request (exit 2),
 * then Redis, the warehouse and the connection (2 or 3, docs/operations.md "Exit codes"); then what
 * exists is checked and, with `--apply`, the rest written and its sync queued. Exit 0 only when every
 * row was created or skipped, else 1 (see the report).
 */
import { EXIT, type CommandContext } from './context.js';
import { JOBS } from '../../jobs/index.js';
import { assertRedisReachable } from '../probes/services.js';
import { parsePushArgs, type PushArgs } from '../push/args.js';
import { allRowsDone } from '../push/outcomes.js';
import { summaryLines, writeReport } from '../push/report.js';

/** Runs `punchline push`. */
export async function pushCommand(ctx: CommandContext, kind: string, args: PushArgs): Promise<number> {
  const options = parsePushArgs(kind, args, ctx.config);
  // Loaded only after the arguments passed: a typo fails without loading BullMQ and the rest.
  const [
    { WRITE_KINDS },
    { prepareRows },
    { barPushReporter, plainPushReporter },
    { pushRows },
    { openRuntime },
  ] = await Promise.all([
    import('../push/kinds/index.js'),
    import('../push/prepare.js'),
    import('../push/progress.js'),
    import('../push/run.js'),
    import('../runtime/runtime.js'),
  ]);
  // Every row is read and checked locally before anything is asked of the API.
  const rows = await prepareRows(WRITE_KINDS[options.kind], options.file, {
    maxFileBytes: ctx.config.pushMaxFileBytes,
    filesDir: options.filesDir,
    allowHidden: options.allowHidden,
  });
  await assertRedisReachable(ctx.config.redisUrl);

  const rt = await openRuntime({ config: ctx.config, logger: ctx.logger, processors: JOBS });
  try {
    const tty = (ctx.out as NodeJS.WriteStream).isTTY === true && options.progress;
    const reporter = tty ? barPushReporter(options.kind, ctx.out) : plainPushReporter(options.kind, ctx.out);
    const run = await pushRows(rt, options, rows, {
      signal: ctx.signal,
      onProgress: (p) => reporter.update(p),
    }).finally(() => reporter.stop());
    for (const line of summaryLines(run.result, options.report)) ctx.out.write(`${line}\n`);
    if (run.queued) {
      const { added, pending } = run.queued;
      ctx.out.write(`sync queued for company ${run.target.company}: ${[...added, ...pending].join(', ')}\n`);
    }
    if (options.report) {
      await writeReport(options.report, run.result);
      ctx.out.write(`report written to ${options.report}\n`);
    }
    return allRowsDone(run.result.rows) ? EXIT.ok : EXIT.failed;
  } finally {
    await rt.close();
  }
}
