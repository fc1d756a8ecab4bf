/**
 * `npm run bench [-- --quick]`: measures the backfill against the floors of this
 * machine at several company sizes (bench/README.md), prints the ratios, writes the
 * figures to bench/results/ and the table to bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBaseline } from './figures.js';
import { describeMachine } from './machine.js';
import { measureSize } from './measure-size.js';
import { BenchUsageError, USAGE, parseBenchOptions } from './options.js';
import { updateReadme } from './readme-table.js';
import {
  baselineLine,
  markdownBlock,
  perSizeTable,
  postgresCpuTable,
  questionsTable,
  summaryTable,
  targetLines,
  workerPerByteTable,
} from './report.js';
import type { BenchResults, SizeFigures } from './results.js';
import { connectRedis, connectWarehouse, openBenchDatabase } from './scratch-space.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Above this 1-minute load average the machine is not quiet enough for figures that mean something. */
const QUIET_LOAD = 1.0;

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  let options;
  try {
    options = parseBenchOptions(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof BenchUsageError) {
      process.stderr.write(`bench: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (options === 'help') {
    say(USAGE);
    return 0;
  }
  // Ctrl-C reaches the emulator and the backfill too; let the stages fail and clean up.
  process.on('SIGINT', () => say('interrupted: cleaning up'));

  const started = Date.now();
  const redis = await connectRedis(options.redisUrl);
  const database = await openBenchDatabase(options.databaseUrl).catch((err: unknown) => {
    redis.disconnect();
    throw err;
  });
  const o = { ...options, databaseUrl: database.url };
  const pool = await connectWarehouse(o.databaseUrl).catch(async (err: unknown) => {
    redis.disconnect();
    await database.release();
    throw err;
  });
  try {
    const machine = await describeMachine(ROOT, pool);
    say(
      `punchline bench (${o.mode}): ${o.sizes.map((n) => n.toLocaleString('en-US')).join(', ')} collaborators, ` +
        `${o.from}..${o.to}, concurrency ${o.concurrency.join(', ')}, ${o.rps} rps; commit ${machine.commit}`,
    );
    const baseline = loadBaseline(ROOT, o.mode, o, machine);
    say(
      typeof baseline === 'string'
        ? `no CPU baseline: ${baseline}`
        : `CPU baseline: ${baseline.file} (${baseline.commit} on ${baseline.machine?.cpu ?? 'an unknown CPU'}, ${baseline.date ?? 'undated'})`,
    );
    say(`warehouse database: ${database.description}`);
    if (machine.loadAtStart > QUIET_LOAD) {
      say(
        `warning: load average ${machine.loadAtStart} on ${machine.cores} cores; other work will distort the figures`,
      );
    }
    const sizes: SizeFigures[] = [];
    for (const size of o.sizes) {
      say(`== ${size.toLocaleString('en-US')} collaborators`);
      const f = await measureSize(size, o, {
        root: ROOT,
        pool,
        redis,
        say,
        baseline: typeof baseline === 'string' ? null : baseline,
      });
      sizes.push(f);
      const x = (r: number | null | undefined) =>
        r === null || r === undefined ? 'n/a' : `${r.toFixed(2)}×`;
      for (const run of f.runs) {
        const share = run.ratios.upkeepOverPostgres;
        say(
          `  c${run.concurrency} ratios: end-to-end ÷ source floor ${x(run.ratios.endToEndOverSource)}, ` +
            `loader ÷ COPY with keys (Postgres CPU) ${x(run.ratios.loaderOverKeyedCopy)}, whole backfill ÷ it ${x(run.ratios.postgresOverKeyedCopy)}, ` +
            `marts + checks ÷ Postgres CPU ${share === null || share === undefined ? 'n/a' : `${(share * 100).toFixed(1)}%`}, ` +
            `worker CPU per byte ÷ JSON.parse ${x(run.ratios.workerOverJsonParse)}, ` +
            `CPU per million rows ÷ baseline: worker ${x(run.ratios.workerCpuOverBaseline)}, Postgres ${x(run.ratios.postgresCpuOverBaseline)}`,
        );
      }
    }
    const results: BenchResults = {
      mode: o.mode,
      date: new Date(started).toISOString(),
      machine,
      settings: {
        from: o.from,
        to: o.to,
        today: o.today,
        seed: o.seed,
        resources: o.resources,
        concurrency: o.concurrency,
        rps: o.rps,
      },
      sizes,
      baseline: typeof baseline === 'string' ? null : baseline,
      ...(typeof baseline === 'string' ? { baselineNote: baseline } : {}),
      loadAtEnd: Number(loadavg()[0]!.toFixed(2)),
      durationS: Math.round((Date.now() - started) / 1000),
    };
    say('');
    for (const line of summaryTable(results)) say(line);
    say('');
    say(baselineLine(results));
    say('');
    for (const line of perSizeTable(results)) say(line);
    say('');
    for (const line of postgresCpuTable(results)) say(line);
    say('');
    for (const line of workerPerByteTable(results)) say(line);
    say('');
    const questions = questionsTable(results);
    if (questions.length > 0) {
      for (const line of questions) say(line);
      say('');
    }
    for (const line of targetLines(results)) say(line);

    let jsonPath: string | undefined;
    if (o.writeJson) {
      const dir = join(ROOT, 'bench', 'results');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${o.mode}-${results.date.slice(0, 10)}-${machine.commit}.json`);
      writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
      jsonPath = relative(ROOT, file);
      say(`\nfigures written to ${jsonPath}`);
    }
    if (o.writeReadme) {
      updateReadme(join(ROOT, 'bench', 'README.md'), o.mode, markdownBlock(results, jsonPath));
      say(`table written to bench/README.md (${o.mode} block)`);
    }
    return 0;
  } finally {
    await pool.end();
    redis.disconnect();
    await database.release();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const e = err as Error & { code?: string };
    process.stderr.write(`bench: ${e.message}${e.code ? ` [${e.code}]` : ''}\n`);
    process.exit(1);
  },
);
