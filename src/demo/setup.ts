/**
 * src/demo/ — `punchline demo`: its configuration, the first-run database, the port check,
 * the banner.
 */
import type { Config, Connection } from '../config.js';
import { addDays } from '../util/time.js';
import { PunchlineError } from '../util/errors.js';

/** Name of the demo's API connection (job ids, sync_runs.connection). */
export const DEMO_CONNECTION = 'demo';
/** The emulator's local time (it speaks Brasília time). */
export const DEMO_TIMEZONE = 'America/Sao_Paulo';
/** Preferred port of the in-process emulator (the `punchline emulator` default). */
export const DEMO_EMULATOR_PORT = 4010;
/** Seed of the demo data, so every demo shows the same people. */
export const DEMO_SEED = 'punchline';
/** The demo's own emulator has no rate limit: faster than the defaults meant for the real API. */
const DEMO_RATE_LIMIT = Object.freeze({ rps: 40, concurrency: 8 });

/** Codes of {@link DemoError}: each says which class of exit code it gets (docs/operations.md "Exit codes"). */
export type DemoErrorCode =
  'demo_failed' | 'not_an_emulator' | 'emulator_unreachable' | 'demo_schema_in_use' | 'ops_port_in_use';

/** A problem with the demo's own arguments, its environment or its external emulator. */
export class DemoError extends PunchlineError<DemoErrorCode> {
  override readonly name = 'DemoError';
  constructor(message: string, code: DemoErrorCode = 'demo_failed') {
    super(code, message);
  }
}

/** The user's configuration with one connection to the emulator instead of any SERVICE_API_*. */
export function demoConfig(
  config: Config,
  emulator: { url: string; token: string },
  databaseUrl: string,
): Config {
  const connection: Connection = Object.freeze({
    name: DEMO_CONNECTION,
    baseUrl: emulator.url.replace(/\/+$/, ''),
    token: emulator.token,
    timezone: DEMO_TIMEZONE,
    rateLimit: DEMO_RATE_LIMIT,
  });
  // The demo's people are made up, so a public key is enough to show the analyst views
  // with pseudonyms; real data needs a key of its own (docs/privacy.md).
  return Object.freeze({
    ...config,
    databaseUrl,
    connections: Object.freeze([connection]),
    pseudonymKey: config.pseudonymKey ?? DEMO_PSEUDONYM_KEY,
  });
}

/** The pseudonym key of the demo when PSEUDONYM_KEY is not set: public, for made-up data only. */
export const DEMO_PSEUDONYM_KEY = 'punchline-demo-key-for-made-up-data-only';

/** The last `days` days up to `today`, both inclusive. */
export function demoRange(today: string, days: number): { from: string; to: string } {
  return { from: addDays(today, -(days - 1)), to: today };
}

/** Parses `--days`: a whole number from 1 to 730. */
export function parseDays(value: unknown): number {
  const s = String(value ?? '90').trim();
  if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > 730) {
    throw new RangeError(`--days must be a whole number from 1 to 730 (got ${JSON.stringify(value)})`);
  }
  return Number(s);
}

/** Parses `--emulator-url`: an http(s) URL of a running `punchline emulator`. */
export function parseEmulatorUrl(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const s = String(value).trim();
  if (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)) return s.replace(/\/+$/, '');
  throw new RangeError(
    `--emulator-url must be an http(s) URL such as http://emulator:4010 (got ${JSON.stringify(value)})`,
  );
}

/** Reads a running emulator's headquarters token (`GET /__emulator/companies`), waiting up to `timeoutMs`. */
export async function fetchEmulatorHeadquarters(
  url: string,
  { timeoutMs = 60_000, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) } = {},
): Promise<{ token: string; companies: number }> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    try {
      const res = await fetch(`${url}/__emulator/companies`, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const list = (await res.json()) as { token?: unknown; is_headquarter?: unknown }[];
      const hq = Array.isArray(list) ? list.find((c) => c.is_headquarter === true) : undefined;
      if (!hq || typeof hq.token !== 'string') {
        throw new DemoError(
          `${url} does not look like a punchline emulator (no headquarters in /__emulator/companies)`,
          'not_an_emulator',
        );
      }
      return { token: hq.token, companies: list.length };
    } catch (err) {
      if (err instanceof DemoError) throw err;
      last = (err as Error).message;
    }
    if (Date.now() >= deadline) {
      throw new DemoError(
        `the emulator at ${url} did not answer within ${Math.round(timeoutMs / 1000)} s (${last}); start it with \`punchline emulator\``,
        'emulator_unreachable',
      );
    }
    await sleep(1000);
  }
}
