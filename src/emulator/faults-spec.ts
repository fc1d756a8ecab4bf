/**
 * The `--faults` mini-language of the CLI:
 * `error403=0.05,error500=0.05,drop=0.02,slow=0.1:2000,rps=20,trickle=0.1:3000,endless=0.01,huge=0.05:67108864`.
 */
import { EmulatorOptionError, checkFaults, NO_FAULTS, type Faults } from './options.js';

/** Names a spec may use, lower-cased: every fault's own, and three short ones. */
const ALIASES: Record<string, keyof Faults> = {
  ...Object.fromEntries(Object.keys(NO_FAULTS).map((k) => [k.toLowerCase(), k])),
  '403': 'error403',
  '500': 'error500',
  rps: 'rateLimitRps',
};

/** Faults whose `:N` suffix sets a second field. */
const SUFFIXES: Partial<Record<keyof Faults, keyof Faults>> = {
  slow: 'slowMs',
  trickle: 'trickleMs',
  huge: 'hugeBytes',
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
        `--faults: cannot read ${JSON.stringify(part)} (expected error403=P, error500=P, drop=P, slow=P[:MS], slowMs=MS, rps=N, trickle=P[:MS], endless=P or huge=P[:BYTES])`,
      );
    }
    const value = Number(m[2]);
    if (!Number.isFinite(value)) throw new EmulatorOptionError(`--faults: ${m[1]} is not a number: ${m[2]}`);
    const suffix = SUFFIXES[key];
    if (m[3] !== undefined && suffix === undefined)
      throw new EmulatorOptionError(`--faults: only slow, trickle and huge take :N, got ${part}`);
    faults[key] = value;
    if (m[3] !== undefined && suffix !== undefined) faults[suffix] = Number(m[3]);
  }
  return checkFaults(faults);
}
