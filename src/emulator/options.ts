/** Options of the emulator (docs/emulator.md), checked into a complete configuration. */
import { isCalendarDate } from '../util/time.js';
import { dayOf } from './calendar.js';
import { EmulatorOptionError } from './option-error.js';
import { resolveQuirks, type Quirks, type QuirksOption } from './quirks.js';

export { EmulatorOptionError };

/** Fault injection of spec requests (not of the admin surface), off unless asked for. */
export const NO_FAULTS = Object.freeze({
  /** Probability of a 403 generic server error (spec §7: "Generic server error"). */
  error403: 0,
  /** Probability of a 500. */
  error500: 0,
  /** Probability that the connection is dropped without any response. */
  drop: 0,
  /** Probability that a response is delayed by `slowMs`. */
  slow: 0,
  /** Delay of a slow response, in milliseconds. */
  slowMs: 2000,
  /** Requests per token in any sliding second past which the answer is 429 with `Retry-After`; 0 = off. */
  rateLimitRps: 0,
  /** Probability that a GET's body trickles: 64 bytes every `trickleMs` (answer-faults.ts). */
  trickle: 0,
  /** Pause between two pieces of a trickling body, in milliseconds. */
  trickleMs: 1000,
  /** Probability that a GET's list answer never ends. */
  endless: 0,
  /** Probability that a GET answer's attachment or photo (`base64`) grows by `hugeBytes`. */
  huge: 0,
  /** Bytes a huge attachment grows by. */
  hugeBytes: 64 * 1024 * 1024,
});
/** Fault injection of spec requests: the fields of {@link NO_FAULTS}, set. */
export type Faults = { -readonly [K in keyof typeof NO_FAULTS]: number };

/** Longest history in days (about 12 years); point ids reserve this many days per collaborator. */
export const MAX_HISTORY_DAYS = 4400;

/** Named data sizes. */
const SCALES = ['small', 'demo', 'large'] as const;
/** A named size or a number of collaborators in all. */
export type Scale = (typeof SCALES)[number] | number;

/** Options of {@link startEmulator} (docs/emulator.md). */
export interface EmulatorOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Data seed (default `punchline`). */
  seed?: string;
  /** Data size (default `small`). */
  scale?: Scale;
  /** First day of generated history (default two years before `today`). */
  from?: string;
  /** The emulator's pinned calendar day (default the real today in Brasília time). */
  today?: string;
  /** Initial faults (default none). */
  faults?: Partial<Faults>;
  /** Stricter readings of what the spec leaves unsaid (docs/emulator.md). */
  strict?: boolean;
  /** Fixed delay added to every spec request, in milliseconds. */
  latencyMs?: number;
  /** `error.code` of a list parameter with the wrong syntax (spec §7 leaves it unshown; default `invalid_list_parameter`). */
  listParameterErrorCode?: string;
  /** Wall clock for rate limits, stats and the unpinned "now" (default `Date.now`). */
  now?: () => number;
  /** Data quirks of real sources (quirks.ts; default none): `true` for all, or a list such as `['nulls', 'duplicateCpf']`. */
  quirks?: QuirksOption;
  /** Scripted labour-law cases on known days (labour-law.ts, docs/emulator.md "Labour-law cases"; default off). */
  labourLaw?: boolean;
}

/** How many active companies a scale means (the headquarters first), and collaborators of each. */
export function planScale(scale: Scale): { companies: number; perCompany: number[] } {
  if (scale === 'small') return { companies: 3, perCompany: [6, 3, 3] };
  if (scale === 'demo') return { companies: 3, perCompany: [30, 18, 12] };
  if (scale === 'large') return { companies: 5, perCompany: [1000, 1000, 1000, 1000, 1000] };
  const total = scale;
  const companies = total >= 2000 ? 5 : 3;
  // The headquarters holds the larger share; every company keeps room for the awkward cases.
  const hq = Math.max(6, Math.round(total * (companies === 5 ? 0.2 : 0.5)));
  const rest = Math.max(companies - 1, total - hq);
  const perCompany = [hq];
  for (let i = 1; i < companies; i++) {
    const share = Math.floor(rest / (companies - 1)) + (i <= rest % (companies - 1) ? 1 : 0);
    perCompany.push(Math.max(3, share));
  }
  return { companies, perCompany };
}

/** Parses `small | demo | large | N`. */
export function parseScale(value: unknown): Scale {
  if (value === undefined) return 'small';
  if (typeof value === 'number') return checkCount(value, String(value));
  const s = String(value).trim();
  if ((SCALES as readonly string[]).includes(s)) return s as Scale;
  if (/^\d+$/.test(s)) return checkCount(Number(s), s);
  throw new EmulatorOptionError(
    `--scale must be small, demo, large or a number of collaborators, got ${JSON.stringify(s)}`,
  );
}

function checkCount(n: number, raw: string): number {
  if (!Number.isInteger(n) || n < 12 || n > 200_000) {
    throw new EmulatorOptionError(`--scale number must be a whole number from 12 to 200000, got ${raw}`);
  }
  return n;
}

/** Options with every default filled in; `pinned` when `today` was given (the clock is frozen at its end). */
export type ResolvedOptions = Readonly<
  Required<Omit<EmulatorOptions, 'faults' | 'quirks'>> & { pinned: boolean; faults: Faults; quirks: Quirks }
>;

/** Checks options and fills defaults. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const now = options.now ?? Date.now;
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new EmulatorOptionError(
      `--port must be a whole number from 0 to 65535, got ${String(options.port)}`,
    );
  }
  for (const key of ['from', 'today'] as const) {
    const v = options[key];
    if (v !== undefined && !isCalendarDate(v)) {
      throw new EmulatorOptionError(`--${key} must be a date YYYY-MM-DD, got ${JSON.stringify(v)}`);
    }
  }
  const brasilia = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' });
  const today = options.today ?? brasilia.format(now());
  // Two years before today (Feb 29 becomes Feb 28).
  const from = options.from ?? `${+today.slice(0, 4) - 2}${today.slice(4)}`.replace(/-02-29$/, '-02-28');
  if (dayOf(from) > dayOf(today)) {
    throw new EmulatorOptionError(`--from (${from}) must not be after --today (${today})`);
  }
  if (dayOf(today) - dayOf(from) >= MAX_HISTORY_DAYS) {
    throw new EmulatorOptionError(
      `--from (${from}) must be less than ${MAX_HISTORY_DAYS} days before --today (${today})`,
    );
  }
  const latencyMs = options.latencyMs ?? 0;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new EmulatorOptionError(
      `latencyMs must be a non-negative number, got ${String(options.latencyMs)}`,
    );
  }
  if (options.listParameterErrorCode !== undefined && !/^[a-z_]+$/.test(options.listParameterErrorCode)) {
    throw new EmulatorOptionError(
      `listParameterErrorCode must be a snake_case code, got ${JSON.stringify(options.listParameterErrorCode)}`,
    );
  }
  const seed = options.seed ?? 'punchline';
  if (seed.length === 0) throw new EmulatorOptionError('--seed must not be empty');
  return {
    port,
    host: options.host ?? '127.0.0.1',
    seed,
    scale: parseScale(options.scale),
    from,
    today,
    pinned: options.today !== undefined,
    faults: checkFaults({ ...NO_FAULTS, ...options.faults }),
    strict: options.strict ?? false,
    latencyMs,
    listParameterErrorCode: options.listParameterErrorCode ?? 'invalid_list_parameter',
    now,
    quirks: resolveQuirks(options.quirks),
    labourLaw: options.labourLaw ?? false,
  };
}

/** Checks a complete set of faults. */
export function checkFaults(f: Faults): Faults {
  for (const key of ['error403', 'error500', 'drop', 'slow', 'trickle', 'endless', 'huge'] as const) {
    const p = f[key];
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
      throw new EmulatorOptionError(`fault ${key} must be a probability from 0 to 1, got ${String(p)}`);
    }
  }
  if (f.error403 + f.error500 + f.drop > 1) {
    throw new EmulatorOptionError('faults error403 + error500 + drop must not exceed 1');
  }
  if (typeof f.slowMs !== 'number' || !Number.isFinite(f.slowMs) || f.slowMs < 0) {
    throw new EmulatorOptionError(
      `fault slowMs must be a non-negative number of milliseconds, got ${String(f.slowMs)}`,
    );
  }
  if (typeof f.rateLimitRps !== 'number' || !Number.isInteger(f.rateLimitRps) || f.rateLimitRps < 0) {
    throw new EmulatorOptionError(
      `fault rateLimitRps must be a whole number ≥ 0, got ${String(f.rateLimitRps)}`,
    );
  }
  if (
    typeof f.trickleMs !== 'number' ||
    !Number.isInteger(f.trickleMs) ||
    f.trickleMs < 0 ||
    f.trickleMs > 600_000
  ) {
    throw new EmulatorOptionError(
      `fault trickleMs must be a whole number of milliseconds from 0 to 600000, got ${String(f.trickleMs)}`,
    );
  }
  if (
    typeof f.hugeBytes !== 'number' ||
    !Number.isInteger(f.hugeBytes) ||
    f.hugeBytes < 1 ||
    f.hugeBytes > 2 ** 33
  ) {
    throw new EmulatorOptionError(
      `fault hugeBytes must be a whole number of bytes from 1 to ${2 ** 33}, got ${String(f.hugeBytes)}`,
    );
  }
  return { ...f };
}

/** Checks a partial update of the faults (admin surface) against the current ones. */
export function mergeFaults(current: Faults, patch: unknown): Faults {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new EmulatorOptionError('faults must be an object like {"error500":0.1}');
  }
  const known = Object.keys(NO_FAULTS);
  for (const k of Object.keys(patch)) {
    if (!known.includes(k))
      throw new EmulatorOptionError(`unknown fault ${JSON.stringify(k)} (known: ${known.join(', ')})`);
  }
  return checkFaults({ ...current, ...(patch as Partial<Faults>) });
}
