/**
 * `punchline config` (docs/operations.md "Effective configuration"): every setting punchline
 * reads, its effective value with secrets masked, and where the value came from — the
 * environment, a `.env` file, a `<VAR>_FILE` secret file, the PUNCHLINE_CONFIG file, or the
 * default. Reads nothing but the configuration: no service is contacted.
 */
import { configSecrets, settingOrigin, VARIABLES, type Config, type Env } from '../config.js';
import { redactUrl } from '../util/database-url.js';
import { renderTable } from '../reports/status-format.js';
import { EXIT, type CommandContext } from './context.js';

/** Options of `punchline config`. */
export type ConfigArgs = { json?: boolean };

/** Where an effective value came from. */
export type ConfigSource = 'env' | '.env' | 'file' | 'config file' | 'default' | 'unset';

/** One line of the effective configuration. */
export interface ConfigLine {
  /** The environment variable, or `connection <name> <field>` for a connection's settings. */
  readonly setting: string;
  /** The effective text, secrets masked; null when unset. */
  readonly value: string | null;
  readonly source: ConfigSource;
  /** The file it was read from (`<VAR>_FILE`'s path, or PUNCHLINE_CONFIG's). */
  readonly file?: string;
}

/** What a masked secret is shown as: never any part of it. */
export const MASK = '********';

/** `text` with each of `secrets` masked, and a URL's password too. */
function masked(text: string, secrets: readonly string[]): string {
  const shown = secrets.reduce((out, s) => out.replaceAll(s, MASK), text);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(shown) ? redactUrl(shown) : shown;
}

/** The effective configuration of `env` as parsed into `config`; `fromDotenv` names the variables a `.env` file set. */
export function effectiveConfig(
  config: Config,
  env: Env,
  fromDotenv: ReadonlySet<string> = new Set(),
): ConfigLine[] {
  const secrets = configSecrets(config);
  const lines: ConfigLine[] = VARIABLES.map((s) => {
    const origin = settingOrigin(s, env);
    if (origin.source === 'unset') return { setting: s.env, value: null, source: 'unset' };
    const value = s.secret ? MASK : masked(origin.text, secrets);
    if (origin.source === 'file') return { setting: s.env, value, source: 'file', file: origin.file };
    const source = origin.source === 'env' && fromDotenv.has(s.env) ? '.env' : origin.source;
    return { setting: s.env, value, source };
  });
  const file = env.PUNCHLINE_CONFIG?.trim();
  // A connection of the environment takes each field from a variable above; one of the file, from the file.
  const sourceOf = (variable: string): Pick<ConfigLine, 'source' | 'file'> => {
    if (file) return { source: 'config file', file };
    const line = lines.find((l) => l.setting === variable)!;
    return line.file ? { source: line.source, file: line.file } : { source: line.source };
  };
  for (const c of config.connections) {
    const field = (name: string, value: string, variable: string): ConfigLine => ({
      setting: `connection ${c.name} ${name}`,
      value,
      ...sourceOf(variable),
    });
    lines.push(
      field('baseUrl', masked(c.baseUrl, secrets), 'SERVICE_API_BASE_URL'),
      field('token', MASK, 'SERVICE_API_TOKEN'),
      field('timezone', c.timezone, 'API_TIMEZONE'),
      field('rps', String(c.rateLimit.rps), 'API_MAX_RPS'),
      field('concurrency', String(c.rateLimit.concurrency), 'API_MAX_CONCURRENCY'),
    );
  }
  return lines;
}

/** The effective configuration as a table (pure). */
export function formatConfig(lines: readonly ConfigLine[]): string {
  const rows = lines.map((l) => [
    l.setting,
    l.value ?? '-',
    l.file ? `${l.source} (${l.file.replace(/^\w+_FILE /, '')})` : l.source,
  ]);
  return `${renderTable(['setting', 'value', 'source'], rows)}\n`;
}

/** Prints the effective configuration; always exit code 0 (a configuration that does not parse fails before, exit 2). */
export function configCommand(ctx: CommandContext, opts: ConfigArgs = {}, env: Env = process.env): number {
  const lines = effectiveConfig(ctx.config, env, ctx.fromDotenv);
  ctx.out.write(opts.json ? `${JSON.stringify({ settings: lines }, null, 2)}\n` : formatConfig(lines));
  return EXIT.ok;
}
