/**
 * `npm run docs:warehouse [-- --check]`: migrates an empty schema in a scratch database
 * of its own, reads its catalog and writes the generated dictionary of
 * docs/warehouse.md below the page's hand-written part, and the warehouse's TypeScript
 * types, src/warehouse/database.ts. With --check it writes nothing and exits 1 when a
 * committed file differs from what the migrations produce.
 * The Postgres server is TEST_POSTGRES_URL (default: the local one), as for the tests.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { introspectSchema } from '../src/warehouse/introspection.js';
import { composeWarehouseDoc, handWrittenPart, renderDatabaseTypes } from '../src/warehouse/dictionary.js';
import { migrate } from '../src/migrations/migrate.js';
import { RESOURCE_SUMMARIES } from '../src/resources/index.js';
import { LOCAL_POSTGRES_URL, createScratchDatabase } from '../src/warehouse/scratch-database.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The page, relative to the repository root. */
const DOC = 'docs/warehouse.md';
/** The types file, relative to the repository root. */
const TYPES = 'src/warehouse/database.ts';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } }, strict: true });
  const committed = readFileSync(join(ROOT, DOC), 'utf8');
  const database = await createScratchDatabase(process.env.TEST_POSTGRES_URL || LOCAL_POSTGRES_URL, 'docs');
  try {
    await migrate(database.url, 'workforce');
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const relations = await introspectSchema(pool, 'workforce');
      const files = [
        {
          file: DOC,
          generated: composeWarehouseDoc(handWrittenPart(committed), relations, RESOURCE_SUMMARIES),
        },
        { file: TYPES, generated: renderDatabaseTypes(relations) },
      ];
      let stale = 0;
      for (const { file, generated } of files) {
        const path = join(ROOT, file);
        const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
        if (values.check) {
          if (generated === current) continue;
          stale++;
          process.stderr.write(
            `${file} is out of date with sql/: run \`npm run docs:warehouse\` and commit it\n`,
          );
          continue;
        }
        writeFileSync(path, generated);
        process.stdout.write(`${file} ${generated === current ? 'was already up to date' : 'written'}\n`);
      }
      return stale > 0 ? 1 : 0;
    } finally {
      await pool.end();
    }
  } finally {
    await database.drop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`docs:warehouse: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
