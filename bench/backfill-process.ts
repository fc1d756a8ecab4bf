/**
 * The end-to-end stage: `punchline backfill` in its own process, exactly as a user runs
 * it, with the probe (worker-probe.mjs) preloaded to record loader, transaction and HTTP
 * time and the peak resident set. The resident set is also polled from outside, in case
 * the probe could not write.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { residentKb } from './proc-stats.js';
import type { Span } from './intervals.js';

/** How to run the backfill. */
export interface BackfillRunInput {
  /** Repository root. */
  readonly root: string;
  /** Environment of the command (variables of docs/configuration.md). */
  readonly env: Readonly<Record<string, string>>;
  /** `--from`, `--to`, `--resources`. */
  readonly from: string;
  readonly to: string;
  readonly resources: readonly string[];
}

/** What the probe wrote when the process exited. */
export interface ProbeReport {
  /** Process lifetime as the probe saw it, ms. */
  readonly uptimeMs: number;
  /** Peak resident set, KiB. */
  readonly hwmKb: number;
  /** Resident set when the first HTTP request started (modules loaded, no data yet), KiB. */
  readonly firstRequestRssKb: number;
  /** CPU time of the process, µs. */
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  /** Loader calls: start, end, loader name, ok. */
  readonly loader: readonly [number, number, string, boolean][];
  /** Warehouse transactions. */
  readonly tx: readonly Span[];
  /** HTTP attempts. */
  readonly http: readonly Span[];
  /** Postgres CPU of the marts' upkeep statements, by mart (absent in results of older probes). */
  readonly marts?: Readonly<Record<string, { readonly statements: number; readonly cpuNs: number }>>;
}

/** Outcome of one backfill run. */
export interface BackfillRun {
  /** Spawn to exit, ms. */
  readonly wallMs: number;
  /** Exit code of the command (0 = every job succeeded). */
  readonly exitCode: number;
  /** Its summary lines. */
  readonly summary: string[];
  /** Jobs that succeeded and in all, and API requests, as the summary says. */
  readonly jobsSucceeded?: number;
  readonly jobsTotal?: number;
  readonly requests?: number;
  /** Peak resident set polled from outside, KiB. */
  readonly polledHwmKb: number;
  /** The probe's report, when it wrote one. */
  readonly probe?: ProbeReport;
  /** Last lines of stderr (for a failed run). */
  readonly stderrTail: string;
}

/** Runs `punchline backfill` and waits for it to exit. */
export async function runBackfillProcess(input: BackfillRunInput): Promise<BackfillRun> {
  const dir = mkdtempSync(join(tmpdir(), 'punchline-bench-'));
  const probeFile = join(dir, 'probe.json');
  const args = [
    '--import',
    './bench/worker-probe.mjs',
    'bin/punchline.js',
    'backfill',
    '--from',
    input.from,
    '--to',
    input.to,
    '--resources',
    input.resources.join(','),
    '--no-progress',
  ];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: input.root,
    env: { ...input.env, PUNCHLINE_BENCH_PROBE: probeFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8_000)));
  let polledHwmKb = 0;
  const poll = setInterval(() => {
    const r = residentKb(child.pid!);
    if (r && Number.isFinite(r.hwmKb)) polledHwmKb = Math.max(polledHwmKb, r.hwmKb);
  }, 200);
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  }).finally(() => clearInterval(poll));
  const wallMs = performance.now() - t0;

  let probe: ProbeReport | undefined;
  try {
    probe = JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeReport;
  } catch {
    probe = undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = stdout
    .split('\n')
    .filter((l) => /^(backfill (finished|interrupted)|rows:|failed:)/.test(l));
  const jobs = /(\d+) of (\d+) jobs succeeded/.exec(stdout);
  const requests = /API requests: (\d+)/.exec(stdout);
  return {
    wallMs,
    exitCode,
    summary,
    jobsSucceeded: jobs ? Number(jobs[1]) : undefined,
    jobsTotal: jobs ? Number(jobs[2]) : undefined,
    requests: requests ? Number(requests[1]) : undefined,
    polledHwmKb,
    probe,
    stderrTail: stderr.trim().split('\n').slice(-5).join('\n'),
  };
}
