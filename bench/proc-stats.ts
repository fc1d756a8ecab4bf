/**
 * What Linux says about a process (`/proc/<pid>`): CPU seconds used so far and the
 * resident set (current and peak). Readers return undefined once the process is gone.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** User + system CPU seconds of `pid` (children not included). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return undefined;
  }
}

/** Resident set of `pid` in KiB: now (`VmRSS`) and peak (`VmHWM`). */
export function residentKb(pid: number): { rssKb: number; hwmKb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of every process named `name` (e.g. `postgres`), including children they
 * have reaped: a Postgres backend that exits is counted in the postmaster's child time.
 */
export function cpuSecondsByName(name: string): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm !== name) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // the process ended while we looked
    }
  }
  return ticks / USER_HZ;
}

/** Machine-wide CPU seconds since boot, all cores (`/proc/stat`): busy, idle and stolen by the hypervisor. */
export interface SystemCpu {
  readonly busyS: number;
  readonly idleS: number;
  readonly stealS: number;
}

/** Reads {@link SystemCpu} now. */
export function systemCpu(): SystemCpu {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  // cpu user nice system idle iowait irq softirq steal guest guest_nice
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  return {
    busyS: (user! + nice! + system! + irq! + softirq!) / USER_HZ,
    idleS: (idle! + iowait!) / USER_HZ,
    stealS: steal! / USER_HZ,
  };
}

/** What the machine did between two readings, s. */
export function systemCpuSince(before: SystemCpu): SystemCpu {
  const now = systemCpu();
  return {
    busyS: now.busyS - before.busyS,
    idleS: now.idleS - before.idleS,
    stealS: now.stealS - before.stealS,
  };
}
