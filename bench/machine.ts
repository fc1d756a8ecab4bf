/**
 * Where and on what a run happened: the machine, the software versions and the commit,
 * written beside every figure so results from different runs are never mixed up.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem } from 'node:os';
import type pg from 'pg';

/** The machine and code of a run. */
export interface MachineInfo {
  /** CPU model. */
  readonly cpu: string;
  /** Logical cores. */
  readonly cores: number;
  /** Memory, GiB. */
  readonly memoryGiB: number;
  /** Kernel release. */
  readonly kernel: string;
  /** Node.js version. */
  readonly node: string;
  /** PostgreSQL version (`server_version`). */
  readonly postgres: string;
  /** Commit of the tree (short hash). */
  readonly commit: string;
  /** True when the benchmarked code (src, jobs, sql, bin) differs from the commit. */
  readonly dirty: boolean;
  /** 1-minute load average when the run started. */
  readonly loadAtStart: number;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** Describes this machine, its Postgres and the commit of `root`. */
export async function describeMachine(root: string, pool: pg.Pool): Promise<MachineInfo> {
  const { rows } = await pool.query<{ server_version: string }>('show server_version');
  const status = git(root, [
    'status',
    '--porcelain',
    '--untracked-files=no',
    '--',
    'src',
    'jobs',
    'sql',
    'bin',
  ]);
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    postgres: rows[0]!.server_version.split(' ')[0]!,
    commit: git(root, ['rev-parse', '--short', 'HEAD']) ?? 'unknown',
    dirty: status === undefined ? false : status.length > 0,
    loadAtStart: Number(loadavg()[0]!.toFixed(2)),
  };
}
