/**
 * The same seed and `--today` give byte-identical responses across restarts; another
 * seed gives other data; moving `today` forward does not rewrite the past.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';

const OPTIONS = { seed: 'determinism', scale: 'small' as const, today: '2025-03-15' };

/** Every GET endpoint of spec 4.1, with parameters that return data. */
const PATHS = [
  'collaborator?include_branches=1',
  'collaborator/totalHours?begin_date=2025-02-01&end_date=2025-02-28&include_branches=1',
  'collaborator/totalHours?begin_date=2025-02-01&end_date=2025-02-28&decimal_format=1',
  'point/getFromPeriod?begin_date=2025-02-01&end_date=2025-03-03&include_branches=1',
  'point/getFromPeriod?begin_date=2025-02-01&end_date=2025-02-10&decimal_format=1',
  'tardiness?begin_date=2024-11-01&end_date=2024-11-30&include_branches=1',
  'adjustment?begin_date=2024-11-01&end_date=2024-11-30&include_branches=1',
  'inconsistency?begin_date=2024-11-01&end_date=2024-11-30&include_branches=1',
  'overtime?date=2025-03-14&include_branches=1',
  'absence/types?include_branches=1',
  'absence/getFromPeriod?begin_date=2024-06-01%2000:00:00&end_date=2024-07-01%2023:59:59&include_branches=1',
  'company?include_branches=1',
  'economic-group',
  'department?include_branches=1',
  'occupation',
  'fired-type',
  'cost-center',
  'collaborator-settings',
  'point-rule',
  'journey',
  'barrier',
  'unit?include_branches=1',
];

async function body(emu: RunningEmulator, path: string): Promise<string> {
  const res = await fetch(`${emu.url}/customer/v2/${path}`, {
    headers: { apiServiceToken: emu.headquartersToken },
  });
  expect(res.status).toBe(200);
  return res.text();
}

let a: RunningEmulator;
let b: RunningEmulator;

beforeAll(async () => {
  a = await startEmulator(OPTIONS);
  b = await startEmulator(OPTIONS);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

describe('determinism', () => {
  it('gives byte-identical responses on every read endpoint across two starts', async () => {
    expect(b.companies).toEqual(a.companies);
    for (const path of PATHS) {
      const [x, y] = await Promise.all([body(a, path), body(b, path)]);
      expect(x.length, path).toBeGreaterThan(20);
      expect(y === x, path).toBe(true);
    }
  });

  it('gives byte-identical attachments and audit photos, and the same ids for the same writes', async () => {
    const points = JSON.parse(
      await body(a, 'point/getFromPeriod?begin_date=2025-02-01&end_date=2025-02-28'),
    ) as {
      data: { days: { points: { point_id: number; has_audit_photo: boolean }[] }[] }[];
    };
    const id = points.data
      .flatMap((c) => c.days.flatMap((d) => d.points))
      .find((p) => p.has_audit_photo)!.point_id;
    expect(await body(b, `point/audit?point_id=${id}`)).toBe(await body(a, `point/audit?point_id=${id}`));
    const write = async (emu: RunningEmulator): Promise<string> => {
      const res = await fetch(`${emu.url}/customer/v2/department`, {
        method: 'POST',
        headers: { apiServiceToken: emu.headquartersToken, 'content-type': 'application/json' },
        body: JSON.stringify({ description: 'Auditoria' }),
      });
      return res.text();
    };
    expect(await write(b)).toBe(await write(a));
  });

  it('changes the data with the seed', async () => {
    const other = await startEmulator({ ...OPTIONS, seed: 'another seed' });
    try {
      expect(other.companies[0]!.cnpj).not.toBe(a.companies[0]!.cnpj);
      expect(await body(other, 'collaborator')).not.toBe(await body(a, 'collaborator'));
    } finally {
      await other.close();
    }
  });

  it('without a pinned clock, shows today the punches made so far', async () => {
    const hours = async (iso: string): Promise<string[]> => {
      const emu = await startEmulator({ seed: 'determinism', scale: 'small', now: () => Date.parse(iso) });
      try {
        expect(emu.today).toBe('2025-03-14');
        const res = JSON.parse(
          await body(emu, 'point/getFromPeriod?begin_date=2025-03-14&end_date=2025-03-14'),
        ) as {
          data: { days: { points: { hour: string }[] }[] }[];
        };
        return res.data.flatMap((c) => c.days.flatMap((d) => d.points.map((p) => p.hour)));
      } finally {
        await emu.close();
      }
    };
    const morning = await hours('2025-03-14T12:00:00Z'); // 09:00 in Brasília
    const evening = await hours('2025-03-14T23:30:00Z'); // 20:30 in Brasília
    expect(morning.every((h) => h <= '09:00')).toBe(true);
    expect(evening.length).toBeGreaterThan(morning.length);
    expect(evening).toEqual(expect.arrayContaining(morning));
    expect(evening.every((h) => h <= '20:30')).toBe(true);
    const pinned = JSON.parse(
      await body(a, 'point/getFromPeriod?begin_date=2025-03-15&end_date=2025-03-15'),
    ) as {
      data: { days: { points: unknown[] }[] }[];
    };
    expect(pinned.data.flatMap((c) => c.days.flatMap((d) => d.points))).toEqual([]);
  });

  it('keeps past days unchanged when today moves forward', async () => {
    const later = await startEmulator({ ...OPTIONS, today: '2025-03-20', from: '2023-03-15' });
    try {
      const path = 'point/getFromPeriod?begin_date=2025-01-01&end_date=2025-01-31&include_branches=1';
      const x = JSON.parse(await body(a, path)) as { data: { national_registry: string; days: unknown[] }[] };
      const y = JSON.parse(await body(later, path)) as {
        data: { national_registry: string; days: unknown[] }[];
      };
      expect(y.data.map((c) => c.days)).toEqual(x.data.map((c) => c.days));
    } finally {
      await later.close();
    }
  });
});
