import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { UsageError } from '../src/commands/context.js';
import { progressLine, rateAndEta } from '../src/backfill/progress.js';
import { summaryLines } from '../src/commands/backfill.js';

const config = loadConfig({
  SERVICE_API_BASE_URL: 'http://127.0.0.1:1',
  SERVICE_API_TOKEN: 'secret-token-1234',
});

describe('parseBackfillArgs', () => {
  it('accepts a range and defaults to every resource but audit photos', () => {
    const o = parseBackfillArgs({ from: '2024-01-01', to: '2024-03-31' }, config);
    expect(o.from).toBe('2024-01-01');
    expect(o.resources).not.toContain('audit_photos');
    expect(o.resources).toContain('punches');
    expect(o.connections.map((c) => c.name)).toEqual(['default']);
    expect(o.force).toBe(false);
  });

  it.each([
    [{ from: '2024-03-01', to: '2024-02-01' }, /--from 2024-03-01 is after --to 2024-02-01/],
    [{ from: '2024-02-30', to: '2024-03-01' }, /--from 2024-02-30 is not a real calendar day/],
    [{ from: '01/02/2024', to: '2024-03-01' }, /--from "01\/02\/2024" is not a date \(use YYYY-MM-DD\)/],
    [{ from: '2024-01-01' }, /--to is required/],
    [{ from: '2024-01-01', to: '2024-01-02', resources: 'punches,overtime' }, /unknown resource "overtime"/],
    [{ from: '2024-01-01', to: '2024-01-02', company: '123' }, /--company "123" is not a CNPJ/],
  ])('rejects %j with one clear line', (args, message) => {
    let caught: unknown;
    try {
      parseBackfillArgs(args, config);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).not.toContain('\n');
  });

  it('names an unknown connection', () => {
    expect(() =>
      parseBackfillArgs({ from: '2024-01-01', to: '2024-01-02', connection: 'nope' }, config),
    ).toThrow(/unknown connection "nope"/);
  });

  it('normalises a formatted CNPJ and keeps --force', () => {
    const o = parseBackfillArgs(
      { from: '2024-01-01', to: '2024-01-02', company: '11.222.333/0001-81', force: true },
      config,
    );
    expect(o.company).toBe('11222333000181');
    expect(o.force).toBe(true);
  });
});

describe('progress and summary', () => {
  it('computes the request rate and the ETA', () => {
    const p = { done: 10, total: 40, failed: 0, rows: 500, requests: 50, elapsedMs: 10_000 };
    expect(rateAndEta(p)).toEqual({ rate: 5, etaSeconds: 30 });
    expect(progressLine(p)).toBe('backfill: 10/40 windows, 500 rows, 50 requests (5.0/s), ETA 30s');
  });

  it('says what failed and how to resume', () => {
    const lines = summaryLines({
      total: 3,
      succeeded: 2,
      failed: 1,
      skipped: 4,
      inserted: 10,
      updated: 1,
      deleted: 0,
      requests: 7,
      durationMs: 65_000,
      interrupted: false,
      failures: [{ id: 'punches.default.x', error: 'boom' }],
      martsCatchUpMs: 1_500,
    });
    expect(lines[0]).toBe(
      'backfill finished with failures in 1m05s: 2 of 3 jobs succeeded, 1 failed, 4 windows skipped as already synced',
    );
    expect(lines).toContain('failed: punches.default.x: boom');
    expect(lines).toContain('marts current 1s after the last window');
  });
});
