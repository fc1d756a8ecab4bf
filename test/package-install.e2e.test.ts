/**
 * The package as a user installs it: `npm pack` (which builds dist/), the tarball
 * installed into an empty folder, and its `punchline` command run from there — no
 * TypeScript sources and no TypeScript tooling next to it. `npm install
 * --prefer-offline` takes the tarballs from npm's cache, which `npm ci` filled.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../src/migrations/files.js';
import { createScratchDatabase, type ScratchDatabase } from '../src/warehouse/scratch-database.js';
import { TEST_DATABASE_URL } from './support/isolation.js';
import { ROOT } from './sync-harness.js';

const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The environment of a nested npm: without the `npm_*` variables of the `npm test` around this run. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

/** One file of `npm pack --json`. */
interface PackedFile {
  path: string;
}

describe('the package installed from its tarball', () => {
  let dir: string;
  let app: string;
  let packed: string[];
  let database: ScratchDatabase | undefined;

  /** Runs the installed `punchline` with only `env` (and PATH) set. */
  const punchline = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [join(app, 'node_modules', 'punchline', 'bin', 'punchline.js'), ...args], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', ...env },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'punchline-package-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      env: npmEnv(),
      maxBuffer: 16 << 20,
    });
    const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      filename: string;
      files: PackedFile[];
    }[];
    packed = info!.files.map((f) => f.path);
    app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true })}\n`);
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, info!.filename)], {
      cwd: app,
      env: npmEnv(),
    });
  }, 300_000);

  afterAll(async () => {
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the compiled JavaScript, the SQL migrations and the docs', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'bin/punchline.js',
        'dist/src/cli.js',
        'dist/jobs/index.js',
      ]),
    );
    expect(packed.filter((p) => p.startsWith('sql/')).sort()).toEqual(
      readMigrations().map((m) => `sql/${m.name}.sql`),
    );
    expect(packed).toEqual(
      expect.arrayContaining(['docs/operations.md', 'docs/configuration.md', 'docs/warehouse.md']),
    );
  });

  it('holds no TypeScript but the warehouse types, no tests, no benchmarks and no development launcher', () => {
    expect(packed.filter((p) => p.endsWith('.ts') || p.endsWith('.map'))).toEqual([
      'dist/src/warehouse/database.d.ts',
    ]);
    expect(packed.filter((p) => /^(src|jobs|test|bench|scripts|deploy)\//.test(p))).toEqual([]);
    expect(packed).not.toContain('bin/compiled.js');
  });

  it('installs without TypeScript tooling', () => {
    for (const tool of ['typescript', 'tsx', 'esbuild', 'vitest']) {
      expect(existsSync(join(app, 'node_modules', tool)), tool).toBe(false);
    }
    expect(existsSync(join(app, 'node_modules', 'punchline', 'src'))).toBe(false);
  });

  it('gives TypeScript users the warehouse types as punchline/warehouse: the example of docs/warehouse.md type-checks, with an unknown column it does not', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'warehouse.md'), 'utf8');
    const example = /## From TypeScript\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc)![1]!;
    expect(example).toContain("import type { Warehouse } from 'punchline/warehouse';");
    // The consumer's own type packages for pg and Node (punchline's dependencies ship none).
    mkdirSync(join(app, 'node_modules', '@types'), { recursive: true });
    for (const types of ['pg', 'node'])
      symlinkSync(join(ROOT, 'node_modules', '@types', types), join(app, 'node_modules', '@types', types));
    writeFileSync(join(app, 'good.mts'), example);
    writeFileSync(join(app, 'bad.mts'), example.replace("'age_seconds'", "'no_such_column'"));
    const tsc = (file: string) =>
      run(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--target',
          'es2022',
          '--skipLibCheck',
          file,
        ],
        { cwd: app },
      ).then(
        () => '',
        (e: { stdout: string }) => e.stdout,
      );
    expect(await tsc('good.mts')).toBe('');
    const line = example.split('\n').findIndex((l) => l.includes("'age_seconds'")) + 1;
    expect(await tsc('bad.mts')).toMatch(new RegExp(`^bad\\.mts\\(${line},\\d+\\): error TS`));
    const loaded = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import('punchline/warehouse').then((m) => console.log(Object.keys(m).length))`,
      ],
      { cwd: app },
    );
    expect(loaded.stdout).toBe('0\n');
  });

  it('prints its version with --version', async () => {
    const r = await punchline(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('lists its commands with --help', async () => {
    const r = await punchline(['--help']);
    expect(r.code).toBe(0);
    for (const command of [
      'migrate',
      'backfill',
      'push',
      'worker',
      'status',
      'verify',
      'forget',
      'pseudonyms',
      'emulator',
      'demo',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });

  it('migrates a scratch database with the SQL it ships', async () => {
    database = await createScratchDatabase(TEST_DATABASE_URL, 'test');
    const env = { DATABASE_URL: database.url, WAREHOUSE_SCHEMA: 'installed', LOG_LEVEL: 'warn' };
    const r = await punchline(['migrate'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/schema installed: applied \d+ migrations/);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        'select count(*)::int as n from installed.schema_migrations',
      );
      expect(rows[0]!.n).toBe(readMigrations().length);
    } finally {
      await client.end();
    }
    const again = await punchline(['migrate', '--status'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/up to date/);
  });
});
