/**
 * `punchline migrate` (docs/operations.md "Migrations"): applies the pending `sql/` migrations to
 * WAREHOUSE_SCHEMA of DATABASE_URL, regenerates the analyst views, and says what it did.
 */
import type { CommandContext } from './context.js';
import { EXIT } from './context.js';
import { migrate } from '../warehouse/migrate.js';

/** Runs the migrations; exit code 0 when the schema is up to date afterwards. */
export async function migrateCommand(ctx: CommandContext): Promise<number> {
  const schema = ctx.config.warehouseSchema;
  const result = await migrate(ctx.config.databaseUrl, schema, ctx.logger);
  if (result.applied.length === 0) {
    ctx.out.write(`schema ${schema} is up to date (${result.alreadyApplied} migrations applied)\n`);
  } else {
    ctx.out.write(
      `schema ${schema}: applied ${result.applied.length} migration${result.applied.length === 1 ? '' : 's'} (${result.applied.join(', ')})\n`,
    );
  }
  if (result.privacy) {
    ctx.out.write(`schema ${result.privacy.analystSchema}: ${result.privacy.views} analyst views up to date\n`);
  }
  return EXIT.ok;
}
