/**
 * The pure parts of `punchline demo`: its options, its date range, the configuration it
 * runs with, and the banner that says where to look.
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { planScale } from '../src/emulator/options.js';
import {
  demoConfig,
  demoRange,
  parseDays,
  parseEmulatorUrl,
  DEMO_CONNECTION,
  DEMO_EMULATOR_PORT,
  DEMO_PSEUDONYM_KEY,
} from '../src/demo/setup.js';
import { DEMO_QUERIES, formatDemoBanner } from '../src/demo/banner.js';
import { opsBaseUrl } from '../src/http/server.js';

describe('demo options', () => {
  it('--days is a whole number from 1 to 730, 90 by default', () => {
    expect(parseDays(undefined)).toBe(90);
    expect(parseDays('7')).toBe(7);
    expect(() => parseDays('0')).toThrow(/--days must be a whole number from 1 to 730/);
    expect(() => parseDays('731')).toThrow(/--days/);
    expect(() => parseDays('ten')).toThrow(/got "ten"/);
  });

  it('--emulator-url must be an http(s) URL', () => {
    expect(parseEmulatorUrl(undefined)).toBeUndefined();
    expect(parseEmulatorUrl('http://emulator:4010/')).toBe('http://emulator:4010');
    expect(() => parseEmulatorUrl('emulator:4010')).toThrow(/--emulator-url must be an http\(s\) URL/);
    expect(() => parseEmulatorUrl('ftp://x')).toThrow(/--emulator-url/);
  });

  it('backfills the last N days up to today, both inclusive', () => {
    expect(demoRange('2025-03-10', 90)).toEqual({ from: '2024-12-11', to: '2025-03-10' });
    expect(demoRange('2025-03-10', 1)).toEqual({ from: '2025-03-10', to: '2025-03-10' });
  });
});

describe('the demo configuration', () => {
  const base = loadConfig({
    SERVICE_API_BASE_URL: 'https://api.example.com',
    SERVICE_API_TOKEN: 'real-token-never-used',
    WAREHOUSE_SCHEMA: 'analytics',
    OPS_PORT: '9999',
  });
  const demo = demoConfig(
    base,
    { url: 'http://127.0.0.1:4010/', token: 'emulator-token' },
    'postgres://me@localhost:5432/punchline',
  );

  it('replaces any configured API connection with one to the emulator', () => {
    expect(demo.connections).toHaveLength(1);
    expect(demo.connections[0]).toMatchObject({
      name: DEMO_CONNECTION,
      baseUrl: 'http://127.0.0.1:4010',
      token: 'emulator-token',
      timezone: 'America/Sao_Paulo',
    });
  });

  it('keeps the rest of the user configuration and the database URL given', () => {
    expect(demo.warehouseSchema).toBe('analytics');
    expect(demo.opsPort).toBe(9999);
    expect(demo.databaseUrl).toBe('postgres://me@localhost:5432/punchline');
    expect(Object.isFrozen(demo)).toBe(true);
  });

  it('gives the made-up data a public pseudonym key unless PSEUDONYM_KEY names one', () => {
    expect(demo.pseudonymKey).toBe(DEMO_PSEUDONYM_KEY);
    const own = loadConfig({
      SERVICE_API_BASE_URL: 'https://api.example.com',
      SERVICE_API_TOKEN: 't',
      PSEUDONYM_KEY: 'a-key-of-my-own-that-is-long-enough-for-it',
    });
    expect(demoConfig(own, { url: 'http://127.0.0.1:4010', token: 'e' }, 'postgres://x/y').pseudonymKey).toBe(
      'a-key-of-my-own-that-is-long-enough-for-it',
    );
  });
});

describe('the demo banner', () => {
  const text = formatDemoBanner({
    opsUrl: 'http://127.0.0.1:9464',
    emulatorUrl: 'http://127.0.0.1:4010',
    companies: 3,
    databaseUrl: 'postgres://bi:s3cret@db.local:5432/punchline',
    schema: 'workforce',
    cli: 'node bin/punchline.js',
  });

  it('says where the dashboard, metrics and health are', () => {
    expect(text).toContain('http://127.0.0.1:9464/dashboard');
    expect(text).toContain('http://127.0.0.1:9464/metrics');
    expect(text).toContain('http://127.0.0.1:9464/readyz');
    expect(text).toContain('node bin/punchline.js status');
  });

  it('gives a psql command into the schema without printing the password', () => {
    expect(text).toContain("PGOPTIONS='-c search_path=workforce' psql postgres://bi@db.local:5432/punchline");
    expect(text).not.toContain('s3cret');
  });

  it('shows example queries over the analyst views and the marts', () => {
    expect(DEMO_QUERIES).toHaveLength(4);
    for (const view of ['daily_attendance', 'monthly_hours', 'monthly_headcount', 'sync_freshness'])
      expect(text).toContain(`from ${view}`);
  });
});

describe('the banner the docs show', () => {
  // What `npm run demo` prints with no configuration; the docs write the operating-system user as alice.
  const defaults = loadConfig({});
  const printed = formatDemoBanner({
    opsUrl: opsBaseUrl(defaults.opsHost, defaults.opsPort),
    emulatorUrl: `http://127.0.0.1:${DEMO_EMULATOR_PORT}`,
    companies: planScale('demo').companies,
    databaseUrl: defaults.databaseUrl,
    schema: defaults.warehouseSchema,
    cli: 'node bin/punchline.js',
  }).replace(`//${encodeURIComponent(userInfo().username)}@`, '//alice@');

  it.each(['README.md', 'docs/operations.md'])('is the one the demo prints, in %s', (page) => {
    const text = readFileSync(new URL(`../${page}`, import.meta.url), 'utf8');
    const shown = /```text\n(punchline demo is running\.[^]*?)\n```/.exec(text)?.[1];
    expect(shown, `${page} shows no demo banner`).toBeDefined();
    const lines = printed.split('\n').slice(1);
    expect(shown!.split('\n')).toEqual(lines.slice(0, shown!.split('\n').length));
    expect(shown).toMatch(/^ {2}Warehouse {3}.* psql postgres:\/\/alice@localhost:5432\/punchline$/m);
  });
});
