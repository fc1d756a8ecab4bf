/**
 * Option parsing of the emulator and of `punchline emulator`: scales, the --faults
 * mini-language, dates, and the one-line errors bad values give.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/commands/context.js';
import { parseEmulatorOptions } from '../src/commands/emulator.js';
import { parseFaultsSpec } from '../src/emulator/faults-spec.js';
import {
  EmulatorOptionError,
  NO_FAULTS,
  mergeFaults,
  parseScale,
  planScale,
  resolveOptions,
} from '../src/emulator/options.js';
import { QUIRK_NAMES, parseQuirksSpec, quirkFlag, resolveQuirks } from '../src/emulator/quirks.js';

describe('scales', () => {
  it('names small, demo and large, and plans the large group as 5 companies of 1,000', () => {
    expect(parseScale('small')).toBe('small');
    expect(parseScale('250')).toBe(250);
    expect(planScale('large')).toEqual({ companies: 5, perCompany: [1000, 1000, 1000, 1000, 1000] });
    const small = planScale('small');
    expect(small.companies).toBe(3);
    expect(small.perCompany.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(12);
    const demo = planScale('demo').perCompany.reduce((a, b) => a + b, 0);
    expect(demo).toBe(60);
  });

  it('spreads a number of collaborators over the group and keeps every company big enough', () => {
    for (const n of [12, 100, 1999, 2000, 7777]) {
      const plan = planScale(n);
      expect(plan.perCompany).toHaveLength(plan.companies);
      expect(plan.perCompany[0]).toBeGreaterThanOrEqual(6);
      expect(Math.min(...plan.perCompany)).toBeGreaterThanOrEqual(3);
      expect(Math.abs(plan.perCompany.reduce((a, b) => a + b, 0) - n)).toBeLessThanOrEqual(plan.companies);
    }
  });

  it('rejects anything else with a message naming --scale', () => {
    expect(() => parseScale('huge')).toThrow(/--scale must be small, demo, large or a number/);
    expect(() => parseScale('3')).toThrow(EmulatorOptionError);
  });
});

describe('--faults', () => {
  it('reads probabilities, slow with its delay, and the rate limit', () => {
    expect(parseFaultsSpec('error403=0.05,error500=0.1,drop=0.02,slow=0.2:1500,rps=20')).toEqual({
      ...NO_FAULTS,
      error403: 0.05,
      error500: 0.1,
      drop: 0.02,
      slow: 0.2,
      slowMs: 1500,
      rateLimitRps: 20,
    });
    expect(parseFaultsSpec('')).toEqual(NO_FAULTS);
  });

  it('rejects unknown keys, probabilities above 1 and error shares above 1', () => {
    expect(() => parseFaultsSpec('boom=1')).toThrow(/--faults: cannot read "boom=1"/);
    expect(() => parseFaultsSpec('drop=1.5')).toThrow(/drop must be a probability/);
    expect(() => parseFaultsSpec('error403=0.6,error500=0.6')).toThrow(/must not exceed 1/);
    expect(() => parseFaultsSpec('rps=2.5')).toThrow(/rateLimitRps must be a whole number/);
  });

  it('merges a run-time change and refuses unknown faults', () => {
    expect(mergeFaults(NO_FAULTS, { error500: 0.5 })).toEqual({ ...NO_FAULTS, error500: 0.5 });
    expect(() => mergeFaults(NO_FAULTS, { nope: 1 })).toThrow(/unknown fault "nope"/);
  });
});

describe('resolveOptions', () => {
  it('defaults history to two years before a pinned today', () => {
    const o = resolveOptions({ today: '2025-03-15' });
    expect([o.from, o.today, o.pinned, o.scale, o.strict]).toEqual([
      '2023-03-15',
      '2025-03-15',
      true,
      'small',
      false,
    ]);
    expect(resolveOptions({ today: '2024-02-29' }).from).toBe('2022-02-28');
  });

  it('uses the real Brasília today when not pinned', () => {
    const o = resolveOptions({ now: () => Date.parse('2025-06-01T02:00:00Z') });
    expect(o.today).toBe('2025-05-31');
    expect(o.pinned).toBe(false);
  });

  it('rejects impossible dates, from after today and bad ports', () => {
    expect(() => resolveOptions({ today: '2025-02-30' })).toThrow(/--today must be a date/);
    expect(() => resolveOptions({ today: '2025-01-01', from: '2025-02-01' })).toThrow(
      /must not be after --today/,
    );
    expect(() => resolveOptions({ port: 70000 })).toThrow(/--port/);
    expect(() => resolveOptions({ listParameterErrorCode: 'Bad Code' })).toThrow(/listParameterErrorCode/);
  });
});

describe('punchline emulator options', () => {
  it('turns the CLI strings into emulator options', () => {
    expect(
      parseEmulatorOptions({
        port: '0',
        seed: 's',
        scale: 'large',
        today: '2025-01-10',
        faults: 'rps=5',
        strict: true,
        latency: '25',
      }),
    ).toMatchObject({
      port: 0,
      seed: 's',
      scale: 'large',
      today: '2025-01-10',
      strict: true,
      latencyMs: 25,
      faults: { rateLimitRps: 5 },
    });
  });

  it('gives a one-line usage error for each bad value', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ port: 'eighty' }, /--port must be a whole number/],
      [{ scale: '0' }, /--scale number must be a whole number from 12/],
      [{ from: '2025-13-01' }, /--from must be a date/],
      [{ faults: 'drop' }, /--faults: cannot read "drop"/],
      [{ latency: '-5' }, /--latency must be a whole number/],
    ];
    for (const [opts, message] of bad) {
      let error: unknown;
      try {
        parseEmulatorOptions(opts);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });
});

describe('--quirks', () => {
  it('reads all, none, and lists in camel or kebab case', () => {
    expect(Object.values(parseQuirksSpec('all')).every(Boolean)).toBe(true);
    expect(Object.values(parseQuirksSpec('none')).some(Boolean)).toBe(false);
    expect(parseQuirksSpec('nulls, new-enums,otherTimeZone')).toMatchObject({
      nulls: true,
      newEnums: true,
      otherTimeZone: true,
      duplicateCpf: false,
    });
    expect(parseEmulatorOptions({ quirks: 'duplicate-cpf,rehire-in-month' }).quirks).toMatchObject({
      duplicateCpf: true,
      rehireInMonth: true,
      nulls: false,
    });
    expect(resolveOptions({ today: '2025-03-15' }).quirks).toEqual(resolveQuirks(false));
  });

  it('takes every quirk docs/emulator.md lists, and the docs list them all', () => {
    const page = readFileSync(new URL('../docs/emulator.md', import.meta.url), 'utf8');
    const row = page.split('\n').find((l) => l.startsWith('| `--quirks <list>` |'));
    const listed = [...(row ?? '').matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!);
    expect(listed).toEqual(['all', 'none', ...QUIRK_NAMES.map(quirkFlag)]);
    for (const flag of listed) expect(() => parseQuirksSpec(flag)).not.toThrow();
    expect(
      QUIRK_NAMES.map((q) =>
        Object.entries(parseQuirksSpec(quirkFlag(q)))
          .filter(([, on]) => on)
          .map(([k]) => k),
      ),
    ).toEqual(QUIRK_NAMES.map((q) => [q]));
  });

  it('refuses an unknown quirk with a one-line error naming it', () => {
    expect(() => parseEmulatorOptions({ quirks: 'nulls,typos' })).toThrow(UsageError);
    expect(() => parseEmulatorOptions({ quirks: 'nulls,typos' })).toThrow(/--quirks: unknown quirk "typos"/);
    expect(() => resolveOptions({ quirks: { nulls: 'yes' } as never })).toThrow(
      /quirk nulls must be true or false/,
    );
  });
});
