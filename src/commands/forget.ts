/**
 * `punchline forget` (docs/privacy.md): erases a person's personal fields from the warehouse, keeping
 * hours, punch times and balances under a tombstone; replaces what other rows, texts and Redis values
 * under the queue prefix say of them (CPF in any form, names); records the erasure so later syncs erase
 * them again (`--lift` ends it). Arguments are checked before any work (exit 2). The CPF is never logged.
 * `--dry-run` counts what it would erase (rows per company, values in Redis) and changes nothing.
 */
import { hostname, userInfo } from 'node:os';
import { EXIT, UsageError, type CommandContext } from './context.js';
import { digitsOnly } from '../util/national-registry.js';
import type { ForgetRequest } from '../privacy/erasures.js';

/** Options of `punchline forget` as commander gives them. */
export type ForgetArgs = Partial<Record<'cpf' | 'company' | 'by' | 'note' | 'lift' | 'dryRun', unknown>>;

/** Checked options of `punchline forget`: what to erase (CPF and CNPJ as digits), or `lift` it instead; `dryRun` only counts. */
export type ForgetOptions = ForgetRequest & { readonly lift: boolean; readonly dryRun: boolean };

/** Checks the arguments of `punchline forget`; throws {@link UsageError}. */
export function parseForgetArgs(args: ForgetArgs): ForgetOptions {
  if (args.cpf === undefined) throw new UsageError('--cpf is required (the CPF of the person to forget)');
  const cpf = digitsOnly(String(args.cpf));
  // The CPF itself is not echoed: this line may end up in a log.
  if (!/^\d{11}$/.test(cpf)) throw new UsageError('--cpf is not a CPF (11 digits, punctuation allowed)');
  let company: string | undefined;
  if (args.company !== undefined) {
    company = digitsOnly(String(args.company));
    if (!/^\d{14}$/.test(company)) {
      throw new UsageError(`--company ${JSON.stringify(String(args.company))} is not a CNPJ (14 digits)`);
    }
  }
  const by = args.by === undefined ? `${userInfo().username}@${hostname()}` : String(args.by).trim();
  if (by === '') throw new UsageError('--by is empty (say who asks for the erasure)');
  const lift = args.lift === true;
  const note = args.note === undefined ? undefined : String(args.note).trim();
  if (lift && note !== undefined) throw new UsageError('--note is recorded with an erasure, not with --lift');
  const dryRun = args.dryRun === true;
  if (lift && dryRun) throw new UsageError('--dry-run counts an erasure; it does not go with --lift');
  return { cpf, ...(company ? { company } : {}), by, ...(note ? { note } : {}), lift, dryRun };
}

/** Runs `punchline forget`. */
export async function forgetCommand(ctx: CommandContext, args: ForgetArgs): Promise<number> {
  const options = parseForgetArgs(args);
  const [
    { assertPostgresReachable, assertRedisReachable },
    { createWarehouse },
    erasures,
    { eraseFromRedis },
    { createRedis },
  ] = await Promise.all([
    import('../probes/services.js'),
    import('../warehouse/db.js'),
    import('../privacy/erasures.js'),
    import('../privacy/redis-erasure.js'),
    import('../runtime/redis.js'),
  ]);
  const { databaseUrl, warehouseSchema: schema, redisUrl, queuePrefix } = ctx.config;
  await assertPostgresReachable(databaseUrl);
  // Both before any work: an erasure is not half done because Redis was down.
  if (!options.lift) await assertRedisReachable(redisUrl);
  const w = createWarehouse(databaseUrl, schema, { max: 2, applicationName: 'punchline forget' });
  try {
    await erasures.checkPrivacyReady(w.pool, schema);
    if (options.lift) {
      const n = await erasures.liftErasure(w.pool, schema, options);
      ctx.logger.info({ erasures: n, company: options.company }, 'erasure lifted');
      ctx.out.write(
        `lifted ${n} erasure${n === 1 ? '' : 's'}: the rows kept under the tombstone have the CPF back; ` +
          `erased fields return when a sync reads their window again (punchline backfill --force --company C --from D --to D)\n`,
      );
      return EXIT.ok;
    }
    if (options.dryRun) {
      const { outcomes, people } = await erasures.previewForget(w.pool, schema, options);
      for (const e of outcomes)
        ctx.out.write(
          e.alreadyStanding
            ? `company ${e.company}: already erased; ${e.rows} rows brought back since would be erased\n`
            : `company ${e.company}: ${e.rows} rows would be erased\n`,
        );
      const redis = createRedis(redisUrl, 'punchline-forget', ctx.logger);
      try {
        const values = await eraseFromRedis(redis, queuePrefix, people, { dryRun: true });
        ctx.out.write(
          `Redis (prefix ${queuePrefix}): ${values} value${values === 1 ? '' : 's'} would be erased\n`,
        );
      } finally {
        await redis.quit().catch(() => redis.disconnect());
      }
      ctx.out.write('dry run: nothing was erased or recorded\n');
      return EXIT.ok;
    }
    for (const e of await erasures.forgetPerson(w.pool, schema, options)) {
      ctx.logger.info({ erasure: e.id, company: e.company, rows: e.rows }, 'person erased');
      ctx.out.write(
        e.alreadyStanding
          ? `company ${e.company}: already erased (erasure ${e.id}, ${e.tombstone}); ${e.rows} rows brought back since were erased\n`
          : `company ${e.company}: erased ${e.rows} rows; the person is ${e.tombstone} in the warehouse (erasure ${e.id})\n`,
      );
    }
    const redis = createRedis(redisUrl, 'punchline-forget', ctx.logger);
    try {
      const values = await eraseFromRedis(
        redis,
        queuePrefix,
        await erasures.erasedPeople(w.pool, schema, options.cpf),
      );
      ctx.logger.info({ values }, 'person erased in Redis');
      ctx.out.write(
        `Redis (prefix ${queuePrefix}): ${values} value${values === 1 ? '' : 's'} that named the person erased\n`,
      );
    } finally {
      await redis.quit().catch(() => redis.disconnect());
    }
    ctx.out.write('every sync of these companies erases the person again while the erasure stands\n');
    return EXIT.ok;
  } finally {
    await w.close();
  }
}
