/**
 * `punchline emulator`: runs the Customer API v2 emulator until SIGINT/SIGTERM and prints its URL
 * and the companies' tokens (fake tokens of a local emulator).
 */
import { once } from 'node:events';
import { isCalendarDate } from '../util/time.js';
import {
  EmulatorOptionError,
  QUIRK_NAMES,
  parseFaultsSpec,
  parseQuirksSpec,
  parseScale,
  startEmulator,
  type EmulatorOptions,
} from '../emulator/index.js';
import { EXIT, UsageError, type CommandContext } from './context.js';

type TextOption = 'port' | 'host' | 'seed' | 'scale' | 'from' | 'today' | 'faults' | 'latency' | 'quirks';

/** Options as commander hands them over (see src/cli.ts). */
export type EmulatorCommandOptions = Partial<Record<TextOption, string>> & {
  strict?: boolean;
  labourLaw?: boolean;
};

/** Checks the CLI options into {@link EmulatorOptions}; a bad value is a one-line {@link UsageError}. */
export function parseEmulatorOptions(opts: EmulatorCommandOptions): EmulatorOptions {
  try {
    const port = opts.port === undefined ? 4010 : Number(opts.port);
    if (!/^\d+$/.test(String(opts.port ?? '4010')) || port > 65535) {
      throw new UsageError(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(opts.port)}`);
    }
    for (const key of ['from', 'today'] as const) {
      const v = opts[key];
      if (v !== undefined && !isCalendarDate(v))
        throw new UsageError(`--${key} must be a date YYYY-MM-DD, got ${JSON.stringify(v)}`);
    }
    if (opts.latency !== undefined && !/^\d+$/.test(opts.latency)) {
      throw new UsageError(
        `--latency must be a whole number of milliseconds, got ${JSON.stringify(opts.latency)}`,
      );
    }
    return {
      port,
      host: opts.host ?? '127.0.0.1',
      seed: opts.seed ?? 'punchline',
      scale: parseScale(opts.scale ?? 'demo'),
      from: opts.from,
      today: opts.today,
      faults: opts.faults === undefined ? undefined : parseFaultsSpec(opts.faults),
      strict: opts.strict ?? false,
      latencyMs: opts.latency === undefined ? undefined : Number(opts.latency),
      quirks: opts.quirks === undefined ? undefined : parseQuirksSpec(opts.quirks),
      labourLaw: opts.labourLaw ?? false,
    };
  } catch (err) {
    if (err instanceof EmulatorOptionError) throw new UsageError(err.message);
    throw err;
  }
}

/** `punchline emulator`: serves until the command's signal is aborted. */
export async function emulatorCommand(ctx: CommandContext, opts: Record<string, unknown>): Promise<number> {
  const options = parseEmulatorOptions(opts as EmulatorCommandOptions);
  if (ctx.signal.aborted) return EXIT.ok;
  let emu;
  try {
    emu = await startEmulator(options);
  } catch (err) {
    if (err instanceof EmulatorOptionError) throw new UsageError(err.message);
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE')
      throw new UsageError(
        `--port ${options.port} is already in use (pick another port or 0 for a free one)`,
      );
    throw err;
  }
  const out = ctx.out;
  out.write(`Customer API v2 emulator listening on ${emu.url}\n`);
  out.write(`  base_url (SERVICE_API_BASE_URL): ${emu.url}\n`);
  out.write(
    `  history ${emu.from} .. ${emu.today}${options.today ? ' (clock pinned)' : ''}, seed ${JSON.stringify(options.seed)}, scale ${String(options.scale)}${options.strict ? ', strict' : ''}\n`,
  );
  const quirks = QUIRK_NAMES.filter((q) => emu.truth.quirks().enabled[q]);
  if (quirks.length > 0) out.write(`  data quirks: ${quirks.join(', ')}\n`);
  out.write('  companies (fake tokens of this local emulator):\n');
  for (const c of emu.companies) {
    out.write(`    ${c.isHeadquarter ? 'HQ    ' : 'branch'} ${c.cnpj}  token ${c.token}  ${c.name}\n`);
  }
  out.write(
    `  admin: ${emu.url}/__emulator/companies, /__emulator/stats, /__emulator/faults, /__emulator/faults/next, /__emulator/tokens/revoke\n`,
  );
  if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
  await emu.close();
  out.write('emulator stopped\n');
  return EXIT.ok;
}
