/**
 * One company size, end to end: start the emulator, warm its caches, fetch the workload
 * (the source floor), backfill the same range into an empty schema (end-to-end), COPY
 * the rows it wrote (the sink floor), and clean up.
 */
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { todayIn } from '../src/util/time.js';
import { runBackfillProcess, type BackfillRun } from './backfill-process.js';
import { startEmulatorProcess } from './emulator-process.js';
import { cpuSecondsByName, systemCpu, systemCpuSince } from './proc-stats.js';
import { spanTotals, type Span } from './intervals.js';
import type { BenchOptions } from './options.js';
import type { EndToEndFigures, SizeFigures } from './results.js';
import {
  createWarehouseSchema,
  dropScratch,
  jobTimeByResource,
  rowCounts,
  scratchNames,
} from './scratch-space.js';
import { copyFloor } from './sink-floor.js';
import { fetchAll } from './source-floor.js';
import { sampleWaits } from './wait-sampler.js';
import { countByEndpoint, planWarmUp, planWorkload } from './workload.js';

/** Shared handles of a run. */
export interface RunHandles {
  /** Repository root. */
  readonly root: string;
  readonly pool: pg.Pool;
  readonly redis: Redis;
  /** Progress lines. */
  readonly say: (line: string) => void;
}

/** The backfill finished with failures or could not run. */
export class EndToEndError extends Error {
  override readonly name = 'EndToEndError';
  readonly code = 'end_to_end_failed';
}

const TIMEZONE = 'America/Sao_Paulo';
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** What the emulator and the warehouse tell about a backfill. */
type Observed = Pick<
  EndToEndFigures,
  | 'requests'
  | 'requestsByEndpoint'
  | 'maxInFlight'
  | 'emulatorCpuS'
  | 'postgresCpuS'
  | 'machine'
  | 'dbWaits'
  | 'jobTime'
  | 'rows'
>;

/** The end-to-end figures from the backfill run, its probe and what was observed around it. */
function endToEndFigures(run: BackfillRun, extra: Observed): EndToEndFigures {
  const p = run.probe;
  const loaderSpans: Span[] = p ? p.loader.map(([a, b]) => [a, b] as const) : [];
  const loaderBy: Record<string, { calls: number; sumMs: number }> = {};
  for (const [a, b, name] of p?.loader ?? []) {
    const e = (loaderBy[name] ??= { calls: 0, sumMs: 0 });
    e.calls += 1;
    e.sumMs += b - a;
  }
  const peakKb = Math.max(p && Number.isFinite(p.hwmKb) ? p.hwmKb : 0, run.polledHwmKb);
  const rowsPerSecond = Object.fromEntries(
    Object.entries(extra.rows).map(([t, n]) => [t, Math.round(n / (run.wallMs / 1000))]),
  );
  return {
    wallMs: run.wallMs,
    exitCode: run.exitCode,
    jobsSucceeded: run.jobsSucceeded ?? null,
    jobsTotal: run.jobsTotal ?? null,
    peakRssMiB: Math.round(peakKb / 1024),
    baselineRssMiB: p && Number.isFinite(p.firstRequestRssKb) ? Math.round(p.firstRequestRssKb / 1024) : null,
    workerCpuS: p ? (p.cpuUserUs + p.cpuSystemUs) / 1e6 : null,
    startupMs: p && p.http.length > 0 ? Math.min(...p.http.map((h) => h[0])) : null,
    loader: p ? spanTotals(loaderSpans) : null,
    loaderBy,
    transactions: p ? spanTotals(p.tx) : null,
    http: p ? spanTotals(p.http) : null,
    httpOrLoaderBusyMs: p ? spanTotals([...p.http, ...loaderSpans]).busyMs : null,
    rowsPerSecond,
    ...extra,
  };
}

/** Measures one size; throws {@link EndToEndError} when the backfill did not succeed. */
export async function measureSize(size: number, o: BenchOptions & { databaseUrl: string }, h: RunHandles): Promise<SizeFigures> {
  const names = scratchNames(size);
  const emu = await startEmulatorProcess({ root: h.root, scale: size, today: o.today, seed: o.seed });
  try {
    const hq = emu.companies[0]!;
    h.say(`  emulator up in ${s(emu.startMs)}: ${emu.companies.length} companies`);
    const workload = planWorkload({
      companies: emu.companies.map((c) => c.cnpj),
      resources: o.resources,
      from: o.from,
      to: o.to,
      today: todayIn(TIMEZONE),
    });
    const budget = { baseUrl: emu.url, token: hq.token, concurrency: o.concurrency, rps: o.rps };

    const warmUp = await fetchAll(planWarmUp(emu.companies.map((c) => c.cnpj), o.to), budget);
    await emu.resetStats();
    const cpu0 = emu.cpuSeconds();
    const machine0 = systemCpu();
    const floor = await fetchAll(workload, budget);
    const sourceMachine = systemCpuSince(machine0);
    const sourceCpu = emu.cpuSeconds() - cpu0;
    const sourceStats = await emu.stats();
    h.say(
      `  source floor: ${s(floor.ms)} (after a ${s(warmUp.ms)} warm-up), ${floor.requests} requests, ${mib(floor.bytes)}, ` +
        `emulator CPU ${sourceCpu.toFixed(1)} s (machine ${sourceMachine.busyS.toFixed(1)} s, stolen ${sourceMachine.stealS.toFixed(1)} s)`,
    );

    await createWarehouseSchema(o.databaseUrl, names.schema);
    await emu.resetStats();
    const cpu1 = emu.cpuSeconds();
    const pgCpu1 = cpuSecondsByName('postgres');
    const machine1 = systemCpu();
    const sampler = sampleWaits(h.pool, names.schema);
    const run = await runBackfillProcess({
      root: h.root,
      from: o.from,
      to: o.to,
      resources: o.resources,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: o.databaseUrl,
        REDIS_URL: o.redisUrl,
        WAREHOUSE_SCHEMA: names.schema,
        QUEUE_PREFIX: names.queuePrefix,
        SERVICE_API_BASE_URL: emu.url,
        SERVICE_API_TOKEN: hq.token,
        API_TIMEZONE: TIMEZONE,
        API_MAX_RPS: String(o.rps),
        API_MAX_CONCURRENCY: String(o.concurrency),
        WORKER_CONCURRENCY: String(o.concurrency),
        // Large windows under a loaded machine must not time out and split: that would change the requests.
        API_TIMEOUT_MS: '120000',
        LOG_LEVEL: 'warn',
      },
    });
    const e2eCpu = emu.cpuSeconds() - cpu1;
    const postgresCpuS = cpuSecondsByName('postgres') - pgCpu1;
    const machine = systemCpuSince(machine1);
    const dbWaits = await sampler.stop();
    const e2eStats = await emu.stats();
    if (run.exitCode !== 0) {
      const why = [...run.summary, run.stderrTail].filter(Boolean).join('\n    ');
      throw new EndToEndError(`punchline backfill exited with ${run.exitCode} at ${size} collaborators:\n    ${why}`);
    }
    const rows = await rowCounts(h.pool, names.schema);
    const endToEnd = endToEndFigures(run, {
      requests: e2eStats.requests,
      requestsByEndpoint: e2eStats.byEndpoint,
      maxInFlight: e2eStats.maxInFlight,
      emulatorCpuS: e2eCpu,
      postgresCpuS,
      machine,
      dbWaits,
      jobTime: await jobTimeByResource(h.pool, names.schema),
      rows,
    });
    const totalRows = Object.values(rows).reduce((a, b) => a + b, 0);
    h.say(
      `  end-to-end:   ${s(run.wallMs)}, ${run.jobsSucceeded}/${run.jobsTotal} jobs, ${e2eStats.requests} requests, ` +
        `${totalRows.toLocaleString('en-US')} rows, peak RSS ${endToEnd.peakRssMiB} MiB`,
    );
    if (e2eStats.requests !== floor.requests) {
      h.say(`  note: the backfill made ${e2eStats.requests} requests, the floor ${floor.requests} (retries or window splits)`);
    }

    const sink = await copyFloor(h.pool, names.schema, names.stageSchema);
    h.say(
      `  sink floor:   COPY ${s(sink.ms)}, ${sink.rows.toLocaleString('en-US')} rows, ${mib(sink.bytes)} ` +
        `(into logged tables with keys and indexes ${s(sink.indexedMs)})`,
    );

    const loaderMs = endToEnd.loader?.busyMs;
    return {
      collaborators: size,
      companies: emu.companies.length,
      emulatorStartMs: emu.startMs,
      plannedByEndpoint: countByEndpoint(workload),
      source: {
        warmUpMs: warmUp.ms,
        ms: floor.ms,
        requests: floor.requests,
        bytes: floor.bytes,
        slowestMs: floor.slowestMs,
        maxInFlight: sourceStats.maxInFlight,
        emulatorCpuS: sourceCpu,
        machine: sourceMachine,
      },
      endToEnd,
      sink: {
        ms: sink.ms,
        indexedMs: sink.indexedMs,
        rows: sink.rows,
        bytes: sink.bytes,
        byTable: Object.fromEntries(
          Object.entries(sink.byTable).map(([t, c]) => [t, { ...c, rowsPerSecond: Math.round(c.rows / (c.ms / 1000)) }]),
        ),
      },
      ratios: {
        endToEndOverSource: run.wallMs / floor.ms,
        endToEndAfterStartupOverSource: endToEnd.startupMs === null ? null : (run.wallMs - endToEnd.startupMs) / floor.ms,
        loaderOverCopy: loaderMs === undefined || sink.ms === 0 ? null : loaderMs / sink.ms,
        loaderOverIndexedCopy: loaderMs === undefined || sink.indexedMs === 0 ? null : loaderMs / sink.indexedMs,
      },
    };
  } finally {
    await emu.stop();
    await dropScratch(h.pool, h.redis, names).catch((err: unknown) =>
      h.say(`  warning: could not drop ${names.schema} / ${names.queuePrefix}: ${(err as Error).message}`),
    );
  }
}
