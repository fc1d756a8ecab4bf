/**
 * Validation of `punchline backfill` arguments (docs/operations.md "Backfill"): every problem is
 * one line naming the argument and the fix, raised before any work (exit code 2).
 */
import { isCalendarDate } from '../util/time.js';
import { UsageError } from '../util/usage-error.js';
import { ConfigError, selectConnections, type Config, type Connection } from '../config.js';
import { digitsOnly } from '../util/national-registry.js';
import { defaultResources, parseResources, type Resource } from '../plan/resources.js';

/** Raw options as commander hands them over. */
export type BackfillArgs = {
  [K in 'from' | 'to' | 'resources' | 'company' | 'connection' | 'force' | 'progress']?: unknown;
};

/** Checked backfill options. */
export interface BackfillOptions {
  /** The days, both included. */
  readonly from: string;
  readonly to: string;
  /** Resources to sync, in canonical order. */
  readonly resources: readonly Resource[];
  /** Only this company (CNPJ digits). */
  readonly company?: string;
  readonly connections: readonly Connection[];
  /** Re-sync windows recorded as done. */
  readonly force: boolean;
  /** Progress bar allowed (on a TTY). */
  readonly progress: boolean;
}

/** Checks a date option such as `--from` (required when `value` is undefined): one line naming it when it is no `YYYY-MM-DD` day. */
export function dateArg(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`${name} is required (YYYY-MM-DD)`);
  const v = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v))
    throw new UsageError(`${name} ${JSON.stringify(v)} is not a date (use YYYY-MM-DD)`);
  if (!isCalendarDate(v)) throw new UsageError(`${name} ${v} is not a real calendar day`);
  return v;
}

/** Checks `--company`: a CNPJ, punctuation allowed; its 14 digits. */
export function companyArg(value: unknown): string {
  const company = digitsOnly(String(value));
  if (!/^\d{14}$/.test(company))
    throw new UsageError(`--company ${JSON.stringify(String(value))} is not a CNPJ (14 digits)`);
  return company;
}

/** Checks the arguments against the configuration; throws UsageError/ConfigError. */
export function parseBackfillArgs(args: BackfillArgs, config: Config): BackfillOptions {
  const from = dateArg('--from', args.from);
  const to = dateArg('--to', args.to);
  if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  let resources = defaultResources(config);
  try {
    if (args.resources !== undefined) resources = parseResources(String(args.resources));
  } catch (err) {
    throw new UsageError(`--resources: ${(err as Error).message}`);
  }
  const company = args.company === undefined ? undefined : companyArg(args.company);
  let connections: readonly Connection[];
  try {
    connections = selectConnections(
      config,
      args.connection === undefined ? undefined : String(args.connection),
    );
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new UsageError((err as Error).message);
  }
  return {
    from,
    to,
    resources,
    ...(company ? { company } : {}),
    connections,
    force: args.force === true,
    progress: args.progress !== false,
  };
}
