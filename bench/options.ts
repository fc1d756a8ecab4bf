/**
 * Options of `npm run bench` and their parsing (pure): which company sizes, which date
 * range, which resources, and the request budget shared by the floors and the backfill.
 */
import { parseArgs } from 'node:util';
import { isCalendarDate } from '../src/util/time.js';
import { isFollowUp, parseResources, type Resource } from '../src/plan/resources.js';
import { LOCAL_POSTGRES_URL } from '../src/warehouse/scratch-database.js';

/** Which preset a run follows. */
export type BenchMode = 'quick' | 'full';

/** Everything one benchmark run needs. */
export interface BenchOptions {
  /** `quick` (under two minutes) or `full`. */
  readonly mode: BenchMode;
  /** Collaborators in all, one emulator per size. */
  readonly sizes: readonly number[];
  /** First day of the synced range. */
  readonly from: string;
  /** Last day of the synced range (inclusive). */
  readonly to: string;
  /** The emulator's pinned day, so every run sees the same data. */
  readonly today: string;
  /** Emulator data seed. */
  readonly seed: string;
  /** Resources synced (and fetched by the source floor). */
  readonly resources: readonly Resource[];
  /**
   * Concurrencies measured at each size, in order: for each, the source floor with that
   * many requests in flight and a backfill with API_MAX_CONCURRENCY = WORKER_CONCURRENCY = it.
   */
  readonly concurrency: readonly number[];
  /** API_MAX_RPS of the backfill and of the source floor. */
  readonly rps: number;
  /** Warehouse database (DATABASE_URL); unset: the run creates a database of its own and drops it at the end. */
  readonly databaseUrl: string | undefined;
  /** Redis of the queues and the request budget. */
  readonly redisUrl: string;
  /** Write the results JSON under bench/results/. */
  readonly writeJson: boolean;
  /** Rewrite this mode's table in bench/README.md. */
  readonly writeReadme: boolean;
}

/** A bad command-line value, reported as one line. */
export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
  readonly code = 'bench_usage';
}

/** Resources of a default run: what dominates a backfill (punches) plus the per-day and per-period reads. */
export const DEFAULT_RESOURCES: readonly Resource[] = [
  'companies',
  'lookups',
  'collaborators',
  'punches',
  'hour_totals',
  'tardiness',
  'hour_bank',
];

/** The presets: quick is 1k and 3k over half a month at concurrency 4 (under two minutes), full adds 10k over three months at 4 and 8. */
export const PRESETS: Readonly<
  Record<BenchMode, { sizes: number[]; from: string; to: string; concurrency: number[] }>
> = {
  quick: { sizes: [1000, 3000], from: '2025-05-01', to: '2025-05-15', concurrency: [4] },
  full: { sizes: [1000, 3000, 10000], from: '2025-03-01', to: '2025-05-31', concurrency: [4, 8] },
};

const DEFAULT_TODAY = '2025-06-30';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Usage text of `npm run bench -- --help`. */
export const USAGE = `usage: npm run bench -- [--quick] [options]
  --quick               1,000 and 3,000 collaborators over half a month (under two minutes)
  --sizes 1000,3000     collaborators per run (default: the preset's)
  --from/--to DATE      synced range, YYYY-MM-DD (default: the preset's)
  --today DATE          emulator's pinned day (default ${DEFAULT_TODAY})
  --resources LIST      resources to sync (default ${DEFAULT_RESOURCES.join(',')})
  --concurrency 4,8     requests in flight and jobs at once, one backfill each (default: quick 4, full 4,8)
  --rps N               requests started per sliding second (default 10000)
  --no-json             do not write bench/results/*.json
  --no-readme           do not rewrite the table in bench/README.md
environment: DATABASE_URL (an existing database; default: a database of the run's own on
  ${LOCAL_POSTGRES_URL.replace(/\/postgres$/, '')}, dropped at the end), REDIS_URL (default ${DEFAULT_REDIS_URL})`;

function wholeNumber(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new BenchUsageError(
      `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(raw);
}

/** A comma list of distinct whole numbers, e.g. `4,8`. */
function wholeNumbers(name: string, raw: string, min: number, max: number): number[] {
  const list = raw.split(',').map((s) => wholeNumber(name, s, min, max));
  if (new Set(list).size !== list.length)
    throw new BenchUsageError(`--${name} lists a value twice: ${JSON.stringify(raw)}`);
  return list;
}

function date(name: string, raw: string): string {
  if (!isCalendarDate(raw))
    throw new BenchUsageError(`--${name} must be a date YYYY-MM-DD, got ${JSON.stringify(raw)}`);
  return raw;
}

/**
 * Parses the command line (`argv` without node and the script) and the two connection
 * variables. Throws {@link BenchUsageError} naming the bad value; returns `'help'` for --help.
 */
export function parseBenchOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): BenchOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        quick: { type: 'boolean', default: false },
        sizes: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        today: { type: 'string' },
        seed: { type: 'string' },
        resources: { type: 'string' },
        concurrency: { type: 'string' },
        rps: { type: 'string' },
        'no-json': { type: 'boolean', default: false },
        'no-readme': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new BenchUsageError(`${(err as Error).message} (see npm run bench -- --help)`);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const mode: BenchMode = v.quick ? 'quick' : 'full';
  const preset = PRESETS[mode];
  const sizes = v.sizes === undefined ? preset.sizes : wholeNumbers('sizes', v.sizes, 12, 200_000);
  const from = v.from === undefined ? preset.from : date('from', v.from);
  const to = v.to === undefined ? preset.to : date('to', v.to);
  const today = v.today === undefined ? DEFAULT_TODAY : date('today', v.today);
  if (from > to) throw new BenchUsageError(`--from ${from} is after --to ${to}`);
  if (to > today) throw new BenchUsageError(`--to ${to} is after the emulator's day --today ${today}`);
  let resources: Resource[] = [...DEFAULT_RESOURCES];
  if (v.resources !== undefined) {
    try {
      resources = parseResources(v.resources);
    } catch (err) {
      throw new BenchUsageError(`--resources: ${(err as Error).message}`);
    }
  }
  const followUps = resources.filter(isFollowUp);
  if (followUps.length > 0) {
    // Their requests depend on the data (which punches have photos), so the source floor cannot plan them.
    throw new BenchUsageError(
      `--resources: follow-up resources are not benchmarked (${followUps.join(', ')})`,
    );
  }
  const seed = v.seed ?? 'bench';
  if (seed.length === 0) throw new BenchUsageError('--seed must not be empty');
  return {
    mode,
    sizes,
    from,
    to,
    today,
    seed,
    resources,
    concurrency:
      v.concurrency === undefined ? preset.concurrency : wholeNumbers('concurrency', v.concurrency, 1, 256),
    rps: v.rps === undefined ? 10_000 : wholeNumber('rps', v.rps, 1, 10_000),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL,
    writeJson: !v['no-json'],
    writeReadme: !v['no-readme'],
  };
}
