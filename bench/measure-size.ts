/**
 * One company size: start the emulator and warm its caches once; then for each
 * concurrency, fetch the workload (the source floor) and backfill the same range into a
 * fresh schema and queue prefix (end-to-end), with `punchline verify`'s checks and the
 * example questions of docs/warehouse.md timed on the first backfill's warehouse; parse
 * the workload's bodies with a plain `JSON.parse` (the yardstick of the worker's CPU per
 * byte); COPY the rows the first backfill wrote (the sink floors, once per size); and
 * clean up.
 */
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { VERIFY_CONCURRENCY } from '../src/commands/verify.js';
import { openCheckPool } from '../src/quality/check-pool.js';
import { runQualityChecks } from '../src/quality/run-checks.js';
import { todayIn } from '../src/util/time.js';
import { runBackfillProcess, type BackfillRun } from './backfill-process.js';
import { startEmulatorProcess, type EmulatorProcess } from './emulator-process.js';
import { timeExampleQuestions } from './example-questions.js';
import { runFigures, totalRows } from './figures.js';
import { cpuSecondsByName, systemCpu, systemCpuSince } from './proc-stats.js';
import { spanTotals, type Span } from './intervals.js';
import { jsonParsePass } from './json-parse-pass.js';
import type { BenchOptions } from './options.js';
import type {
  BaselineFigures,
  EndToEndFigures,
  QuestionFigures,
  SizeFigures,
  SourceFigures,
} from './results.js';
import {
  createWarehouseSchema,
  dropScratch,
  jobTimeByResource,
  rowCounts,
  scratchNames,
  stopAutovacuum,
  type ScratchNames,
} from './scratch-space.js';
import { copyFloor } from './sink-floor.js';
import { fetchAll } from './source-floor.js';
import { sampleWaits } from './wait-sampler.js';
import { countByEndpoint, planWarmUp, planWorkload, type PlannedRequest } from './workload.js';

/** Shared handles of a run. */
export interface RunHandles {
  /** Repository root. */
  readonly root: string;
  readonly pool: pg.Pool;
  readonly redis: Redis;
  /** Progress lines. */
  readonly say: (line: string) => void;
  /** The baseline of the CPU targets (null: none comparable). */
  readonly baseline: BaselineFigures | null;
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
  | 'checksPgCpuS'
  | 'martRows'
  | 'machine'
  | 'dbWaits'
  | 'otherDatabasesActive'
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
  const martsBy = Object.fromEntries(
    Object.entries(p?.marts ?? {}).map(([m, v]) => [m, { statements: v.statements, cpuS: v.cpuNs / 1e9 }]),
  );
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
    ...(p?.marts ? { martsPgCpuS: Object.values(martsBy).reduce((n, m) => n + m.cpuS, 0), martsBy } : {}),
    rowsPerSecond,
    ...extra,
  };
}

type Options = BenchOptions & { databaseUrl: string };

/** The source floor at `concurrency`: one pass over the workload, after a stats reset. */
async function sourceFloor(
  emu: EmulatorProcess,
  workload: readonly PlannedRequest[],
  concurrency: number,
  o: Options,
  h: RunHandles,
): Promise<SourceFigures> {
  await emu.resetStats();
  const cpu0 = emu.cpuSeconds();
  const machine0 = systemCpu();
  const floor = await fetchAll(workload, {
    baseUrl: emu.url,
    token: emu.companies[0]!.token,
    concurrency,
    rps: o.rps,
  });
  const machine = systemCpuSince(machine0);
  const emulatorCpuS = emu.cpuSeconds() - cpu0;
  const stats = await emu.stats();
  h.say(
    `  c${concurrency} source floor: ${s(floor.ms)}, ${floor.requests} requests, ${mib(floor.bytes)}, ` +
      `emulator CPU ${emulatorCpuS.toFixed(1)} s (machine ${machine.busyS.toFixed(1)} s, stolen ${machine.stealS.toFixed(1)} s)`,
  );
  return {
    ms: floor.ms,
    requests: floor.requests,
    bytes: floor.bytes,
    slowestMs: floor.slowestMs,
    maxInFlight: stats.maxInFlight,
    emulatorCpuS,
    machine,
  };
}

/** `punchline backfill` at `concurrency` into the fresh schema and queue prefix of `names`. */
/** The environment of a `punchline backfill` of the bench into the schema and queue prefix of `names`. */
function backfillEnv(
  emu: EmulatorProcess,
  names: ScratchNames,
  concurrency: number,
  o: Options,
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    WAREHOUSE_SCHEMA: names.schema,
    QUEUE_PREFIX: names.queuePrefix,
    SERVICE_API_BASE_URL: emu.url,
    SERVICE_API_TOKEN: emu.companies[0]!.token,
    API_TIMEZONE: TIMEZONE,
    API_MAX_RPS: String(o.rps),
    API_MAX_CONCURRENCY: String(concurrency),
    WORKER_CONCURRENCY: String(concurrency),
    // Large windows under a loaded machine must not time out and split: that would change the requests.
    API_TIMEOUT_MS: '120000',
    LOG_LEVEL: 'warn',
  };
}

/** Tables the absences of the example questions add to a warehouse whose backfill did not sync them (left out of the sink floors). */
const ABSENCE_TABLES = ['absences', 'absence_collaborators'];

async function endToEnd(
  emu: EmulatorProcess,
  names: ScratchNames,
  concurrency: number,
  size: number,
  o: Options,
  h: RunHandles,
): Promise<EndToEndFigures> {
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
    env: backfillEnv(emu, names, concurrency, o),
  });
  const e2eCpu = emu.cpuSeconds() - cpu1;
  const postgresCpuS = cpuSecondsByName('postgres') - pgCpu1;
  const machine = systemCpuSince(machine1);
  const sampled = await sampler.stop();
  const stats = await emu.stats();
  if (run.exitCode !== 0) {
    const why = [...run.summary, run.stderrTail].filter(Boolean).join('\n    ');
    throw new EndToEndError(
      `punchline backfill exited with ${run.exitCode} at ${size} collaborators, concurrency ${concurrency}:\n    ${why}`,
    );
  }
  const rows = await rowCounts(h.pool, names.schema);
  const figures = endToEndFigures(run, {
    requests: stats.requests,
    requestsByEndpoint: stats.byEndpoint,
    maxInFlight: stats.maxInFlight,
    emulatorCpuS: e2eCpu,
    postgresCpuS,
    checksPgCpuS: sampled.checksCpuS,
    martRows: await rowCounts(h.pool, names.schema, 'marts'),
    machine,
    dbWaits: sampled.waits,
    otherDatabasesActive: sampled.samples > 0 ? sampled.otherDatabases / sampled.samples : 0,
    jobTime: await jobTimeByResource(h.pool, names.schema),
    rows,
  });
  h.say(
    `  c${concurrency} end-to-end:   ${s(run.wallMs)}, ${run.jobsSucceeded}/${run.jobsTotal} jobs, ${stats.requests} requests, ` +
      `${totalRows(rows).toLocaleString('en-US')} rows, peak RSS ${figures.peakRssMiB} MiB, ` +
      `CPU worker ${figures.workerCpuS === null ? 'n/a' : `${figures.workerCpuS.toFixed(1)} s`} · Postgres ${postgresCpuS.toFixed(1)} s ` +
      `(checks after windows ${sampled.checksCpuS.toFixed(1)} s, marts ${(figures.martsPgCpuS ?? 0).toFixed(1)} s: ` +
      `${Object.entries(figures.martsBy ?? {})
        .map(([m, v]) => `${m} ${v.cpuS.toFixed(1)}`)
        .join(', ')})`,
  );
  if (sampled.otherDatabases > 0) {
    h.say(
      `  note: other databases' backends were active in ${Math.round((figures.otherDatabasesActive ?? 0) * 100)}% of samples; ` +
        'the Postgres CPU includes their work',
    );
  }
  return figures;
}

/**
 * Measures one size at every concurrency of `o.concurrency`; throws
 * {@link EndToEndError} when a backfill did not succeed.
 */
export async function measureSize(size: number, o: Options, h: RunHandles): Promise<SizeFigures> {
  const emu = await startEmulatorProcess({ root: h.root, scale: size, today: o.today, seed: o.seed });
  /** Schemas and prefixes still to drop. */
  const scratch: ScratchNames[] = [];
  const drop = async (names: ScratchNames) => {
    await dropScratch(h.pool, h.redis, names).catch((err: unknown) =>
      h.say(`  warning: could not drop ${names.schema} / ${names.queuePrefix}: ${(err as Error).message}`),
    );
    scratch.splice(scratch.indexOf(names), 1);
  };
  try {
    const companies = emu.companies.map((c) => c.cnpj);
    h.say(`  emulator up in ${s(emu.startMs)}: ${emu.companies.length} companies`);
    const workload = planWorkload({
      companies,
      resources: o.resources,
      from: o.from,
      to: o.to,
      today: todayIn(TIMEZONE),
    });
    const warmUp = await fetchAll(planWarmUp(companies, o.to), {
      baseUrl: emu.url,
      token: emu.companies[0]!.token,
      concurrency: o.concurrency[0]!,
      rps: o.rps,
    });
    h.say(`  warm-up:      ${s(warmUp.ms)}`);

    const measured: { concurrency: number; source: SourceFigures; endToEnd: EndToEndFigures }[] = [];
    let first: ScratchNames | undefined;
    let checksMs: number | undefined;
    let questions: QuestionFigures[] | undefined;
    let absencesAdded = false;
    for (const concurrency of o.concurrency) {
      const source = await sourceFloor(emu, workload, concurrency, o, h);
      const names = scratchNames(size, concurrency);
      scratch.push(names);
      const e2e = await endToEnd(emu, names, concurrency, size, o, h);
      if (e2e.requests !== source.requests) {
        h.say(
          `  note: the backfill made ${e2e.requests} requests, the windows need ${source.requests} (retries or window splits)`,
        );
      }
      if (first === undefined) {
        // Kept for the sink floors; its rows must not be vacuumed during the stages that follow.
        first = names;
        await stopAutovacuum(h.pool, names.schema);
        // punchline verify's checks over the synced range, as a user would run them after the backfill.
        const checks = openCheckPool(o.databaseUrl, names.schema, {
          max: VERIFY_CONCURRENCY,
          applicationName: 'punchline bench verify',
        });
        const started = Date.now();
        try {
          await runQualityChecks(
            checks.pool,
            names.schema,
            { from: o.from, to: o.to },
            { defaultTimeZone: TIMEZONE },
            { concurrency: VERIFY_CONCURRENCY },
          );
          checksMs = Date.now() - started;
        } finally {
          await checks.close();
        }
        h.say(`  quality checks: ${s(checksMs)} (punchline verify over ${o.from}..${o.to})`);
        // The analysts' first questions (docs/warehouse.md "Example questions") of the warehouse the backfill left,
        // with the range's absences too (absence_days) when the backfill did not sync them: not timed, left out of
        // the sink floors.
        if (!o.resources.includes('absences')) {
          const extra = await runBackfillProcess({
            root: h.root,
            from: o.from,
            to: o.to,
            resources: ['absences'],
            env: backfillEnv(emu, names, concurrency, o),
          });
          if (extra.exitCode !== 0)
            throw new EndToEndError(
              `punchline backfill --resources absences exited with ${extra.exitCode}: ${extra.stderrTail}`,
            );
          absencesAdded = true;
        }
        questions = await timeExampleQuestions(h.pool, names.schema);
        h.say(
          `  example questions (ms of three runs · rows): ` +
            questions
              .map(
                (q) =>
                  `${q.name} ${q.runsMs.map((ms) => ms.toFixed(1)).join('/')}${q.timedOut ? ' (timed out)' : ''} · ${q.rows}`,
              )
              .join('; '),
        );
      } else {
        const firstRows = totalRows(measured[0]!.endToEnd.rows);
        if (totalRows(e2e.rows) !== firstRows) {
          h.say(
            `  note: ${totalRows(e2e.rows)} rows at concurrency ${concurrency}, ${firstRows} at ${measured[0]!.concurrency}`,
          );
        }
        await drop(names);
      }
      measured.push({ concurrency, source, endToEnd: e2e });
    }

    // The yardstick of the worker's CPU per byte, kept out of every other figure: after the backfills, before the sink floors.
    const jsonParse = await jsonParsePass(workload, {
      baseUrl: emu.url,
      token: emu.companies[0]!.token,
      concurrency: o.concurrency[0]!,
      rps: o.rps,
    });
    h.say(
      `  JSON.parse:   ${jsonParse.requests} bodies, ${mib(jsonParse.bytes)}: ${jsonParse.cpuS.toFixed(2)} CPU-s in the parse calls, ` +
        `${jsonParse.nsPerByte.toFixed(1)} ns/byte`,
    );

    // Nothing else of the bench runs during the sink floors: the emulator is stopped, the backfills are over.
    await emu.stop();
    const sink = await copyFloor(
      h.pool,
      first!.schema,
      first!.stageSchema,
      absencesAdded ? ABSENCE_TABLES : [],
    );
    h.say(
      `  sink floors:  ${sink.rows.toLocaleString('en-US')} rows, ${mib(sink.bytes)}; COPY floor ${s(sink.ms)} ` +
        `(Postgres CPU ${sink.pgCpuS.toFixed(1)} s), COPY with keys, logged ${s(sink.indexedMs)} (Postgres CPU ${sink.indexedPgCpuS.toFixed(1)} s)`,
    );

    return {
      collaborators: size,
      companies: emu.companies.length,
      emulatorStartMs: emu.startMs,
      warmUpMs: warmUp.ms,
      plannedRequests: workload.length,
      plannedByEndpoint: countByEndpoint(workload),
      ...(checksMs === undefined ? {} : { checksMs }),
      ...(questions === undefined ? {} : { questions }),
      jsonParse,
      runs: measured.map((m) =>
        runFigures({ ...m, collaborators: size, sink, baseline: h.baseline, jsonParse }),
      ),
      sink: {
        ms: sink.ms,
        pgCpuS: sink.pgCpuS,
        indexedMs: sink.indexedMs,
        indexedPgCpuS: sink.indexedPgCpuS,
        rows: sink.rows,
        bytes: sink.bytes,
        byTable: Object.fromEntries(
          Object.entries(sink.byTable).map(([t, c]) => [
            t,
            { ...c, rowsPerSecond: Math.round(c.rows / (c.ms / 1000)) },
          ]),
        ),
      },
    };
  } finally {
    await emu.stop();
    for (const names of [...scratch]) await drop(names);
  }
}
