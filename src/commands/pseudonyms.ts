/**
 * `punchline pseudonyms` (docs/privacy.md "Rotating the key"): gives every CPF its pseudonym under
 * PSEUDONYM_KEY in one transaction and makes it the current key (an older one too: the operator's
 * call), so a rotation takes effect at once and the old key's leftovers go, not at each next sync.
 */
import { ConfigError } from '../config.js';
import { EXIT, type CommandContext } from './context.js';

/** Runs `punchline pseudonyms`. */
export async function pseudonymsCommand(ctx: CommandContext): Promise<number> {
  const key = ctx.config.pseudonymKey;
  if (key === undefined) {
    throw new ConfigError(
      'PSEUDONYM_KEY is not set (export it, or PSEUDONYM_KEY_FILE naming a file that holds it)',
    );
  }
  const [
    { assertPostgresReachable },
    { createWarehouse },
    { checkPrivacyReady },
    { withTransaction },
    pseudonyms,
  ] = await Promise.all([
    import('../probes/services.js'),
    import('../warehouse/db.js'),
    import('../privacy/erasures.js'),
    import('../warehouse/transaction.js'),
    import('../privacy/pseudonyms.js'),
  ]);
  const { databaseUrl, warehouseSchema: schema } = ctx.config;
  await assertPostgresReachable(databaseUrl);
  const w = createWarehouse(databaseUrl, schema, { max: 1, applicationName: 'punchline pseudonyms' });
  try {
    await checkPrivacyReady(w.pool, schema);
    const stats = await withTransaction(w.pool, (client) =>
      pseudonyms.ensurePseudonyms(client, schema, key, { prune: true, activate: true }),
    );
    ctx.logger.info({ ...stats, keyId: pseudonyms.keyIdOf(key) }, 'pseudonyms computed');
    ctx.out.write(
      `schema ${schema}: ${stats.mapped} CPFs given a pseudonym of key ${pseudonyms.keyIdOf(key)}, ` +
        `${stats.pruned} pseudonyms of an older key removed\n`,
    );
    return EXIT.ok;
  } finally {
    await w.close();
  }
}
