/**
 * The `--faults` mini-language of the CLI:
 * `error403=0.05,error500=0.05,drop=0.02,slow=0.1:2000,rps=20`.
 */
import { EmulatorOptionError, checkFaults, NO_FAULTS, type Faults } from './options.js';

const ALIASES: Record<string, keyof Faults> = {
  error403: 'error403',
  '403': 'error403',
  error500: 'error500',
  '500': 'error500',
  drop: 'drop',
  slow: 'slow',
  slowms: 'slowMs',
  rps: 'rateLimitRps',
  ratelimitrps: 'rateLimitRps',
};

/** Parses a fault spec into complete faults; an empty string means none. */
export function parseFaultsSpec(spec: string): Faults {
  const faults: Faults = { ...NO_FAULTS };
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (part === '') continue;
    const m = /^([A-Za-z0-9]+)=([0-9.]+)(?::(\d+))?$/.exec(part);
    const key = m ? ALIASES[m[1]!.toLowerCase()] : undefined;
    if (!m || !key) {
      throw new EmulatorOptionError(
        `--faults: cannot read ${JSON.stringify(part)} (expected error403=P, error500=P, drop=P, slow=P[:MS], slowMs=MS or rps=N)`,
      );
    }
    const value = Number(m[2]);
    if (!Number.isFinite(value)) throw new EmulatorOptionError(`--faults: ${m[1]} is not a number: ${m[2]}`);
    if (m[3] !== undefined && key !== 'slow') throw new EmulatorOptionError(`--faults: only slow takes :MS, got ${part}`);
    faults[key] = value;
    if (m[3] !== undefined) faults.slowMs = Number(m[3]);
  }
  return checkFaults(faults);
}
