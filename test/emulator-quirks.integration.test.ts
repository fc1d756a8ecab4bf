/**
 * The data quirks of real sources (`quirks` option, `--quirks`), read over HTTP: nulls
 * where real records lack data, values outside the spec's lists, an unpadded CPF, a
 * duplicated CPF and a re-hire within a month, and a branch in another time zone. Each
 * is reflected in the ground truth, and the data stays deterministic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durationToSeconds } from '../src/util/duration.js';
import { isValidCpf } from '../src/util/national-registry.js';
import { localToUtc } from '../src/util/time.js';
import { NEW_ENUM_VALUES, QUIRK_NAMES, startEmulator, type RunningEmulator } from '../src/emulator/index.js';

const TODAY = '2025-03-15';
const MONTH = { from: '2025-02-01', to: '2025-02-28' };
let emu: RunningEmulator;
let plain: RunningEmulator;

type Json = Record<string, unknown>;
type Item = Json & {
  national_registry: string;
  registration_number: string | null;
  company: { national_registry: string };
};

async function get<T = Item[]>(
  e: RunningEmulator,
  path: string,
  params: Record<string, string> = {},
): Promise<T> {
  const q = new URLSearchParams({ include_branches: '1', ...params });
  const res = await fetch(`${e.url}/customer/v2/${path}?${q}`, {
    headers: { apiServiceToken: e.headquartersToken },
  });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

const points = (items: Item[]): Json[] =>
  items.flatMap((c) =>
    (c.days as { points: Json[] }[]).flatMap((d) =>
      d.points.map((p) => ({ ...p, cpf: c.national_registry })),
    ),
  );

beforeAll(async () => {
  emu = await startEmulator({ seed: 'quirks', scale: 'small', today: TODAY, quirks: true });
  plain = await startEmulator({ seed: 'quirks', scale: 'small', today: TODAY });
});
afterAll(async () => {
  await emu?.close();
  await plain?.close();
});

describe('without quirks', () => {
  it('sends none of them: every punch geolocated, every block with pis, the five origins only', async () => {
    expect(Object.values(plain.truth.quirks().enabled).every((on) => !on)).toBe(true);
    const all = points(
      await get(plain, 'point/getFromPeriod', { begin_date: MONTH.from, end_date: MONTH.to }),
    );
    expect(all.every((p) => p.geolocation !== null && typeof p.accuracy_meters === 'number')).toBe(true);
    expect(new Set(all.map((p) => p.origin))).not.toContain(NEW_ENUM_VALUES.origin);
    expect(
      (await get(plain, 'collaborator')).every(
        (c) => typeof c.pis === 'string' && c.national_registry.length === 11,
      ),
    ).toBe(true);
    expect(plain.truth.companies().every((c) => c.timeZone === 'America/Sao_Paulo')).toBe(true);
  });
});

describe('quirk nulls', () => {
  it('sends punches of physical clocks and managers without GPS, the others with it', async () => {
    const all = points(await get(emu, 'point/getFromPeriod', { begin_date: MONTH.from, end_date: MONTH.to }));
    const bare = all.filter((p) => p.origin === 'REP' || p.origin === 'Manual');
    expect(bare.length).toBeGreaterThan(0);
    for (const p of bare) expect([p.geolocation, p.accuracy_meters, p.address]).toEqual([null, null, null]);
    const located = all.filter((p) => p.origin === 'App Mobile' || p.origin === 'Web');
    expect(located.length).toBeGreaterThan(0);
    expect(located.every((p) => p.geolocation !== null && p.address !== null)).toBe(true);
    const truth = emu.companies.flatMap((c) => emu.truth.points(c.cnpj, MONTH.from, MONTH.to));
    expect(
      truth
        .filter((p) => !p.geolocated)
        .map((p) => p.pointId)
        .sort(),
    ).toEqual(bare.map((p) => p.point_id).sort());
  });

  it('sends contractors without registration_number and pis, one per company', async () => {
    const contractors = (await get(emu, 'collaborator')).filter((c) => c.pis === null);
    expect(contractors.map((c) => c.company.national_registry).sort()).toEqual(
      emu.companies.map((c) => c.cnpj).sort(),
    );
    expect(contractors.every((c) => c.registration_number === null)).toBe(true);
    const truth = emu.companies.flatMap((co) => emu.truth.collaborators(co.cnpj).filter((c) => c.contractor));
    expect(truth.map((c) => c.collaboratorId)).toHaveLength(3);
    expect(truth.every((c) => c.pis === null && c.registration_number === null)).toBe(true);
  });

  it('leaves address parts of one branch empty, null or absent', async () => {
    const companies = await get<Json[]>(emu, 'company');
    const last = companies.find((c) => c.national_registry === emu.companies[2]!.cnpj)!;
    expect(last.address_number).toBe('');
    expect(last.complement).toBeNull();
    expect('neighborhood' in last).toBe(false);
    expect(emu.truth.companies().find((c) => c.cnpj === emu.companies[2]!.cnpj)!.record).toEqual(last);
  });

  it('sends requests awaiting a manager without observation and approver', async () => {
    const items = await get(emu, 'adjustment', { begin_date: '2024-06-01', end_date: '2024-06-30' });
    const requests = items.flatMap((c) => c.adjustments as Json[]);
    const waiting = requests.filter(
      (a) => a.status === 'Pendente' || a.status === NEW_ENUM_VALUES.adjustmentStatus,
    );
    expect(waiting.length).toBeGreaterThan(0);
    for (const a of waiting) expect([a.manager_observation, a.approved_by]).toEqual([null, null]);
    expect(
      requests.filter((a) => a.status === 'Aprovado').every((a) => typeof a.approved_by === 'string'),
    ).toBe(true);
  });

  it('sends absences without a medical certificate without its fields, medical ones with them', async () => {
    const list: Json[] = [];
    for (const month of ['2024-03', '2024-04', '2024-05', '2024-06', '2024-07', '2024-08']) {
      list.push(
        ...(await get<Json[]>(emu, 'absence/getFromPeriod', {
          begin_date: `${month}-01 00:00:00`,
          end_date: `${month}-28 23:59:59`,
        })),
      );
    }
    const medical = list.filter((a) => typeof a.cr_register === 'string');
    const other = list.filter((a) => a.cr_register === null);
    expect(medical.length).toBeGreaterThan(0);
    expect(other.length).toBeGreaterThan(0);
    for (const a of other)
      expect([a.cid, a.cr_register, a.health_unit, a.professional_name, a.cid_description]).toEqual([
        null,
        null,
        null,
        null,
        null,
      ]);
    for (const a of medical) expect((a.cid as string[]).length).toBeGreaterThan(0);
  });
});

describe('quirk newEnums', () => {
  it('sends a sixth punch origin with its own method', async () => {
    const all = points(await get(emu, 'point/getFromPeriod', { begin_date: MONTH.from, end_date: MONTH.to }));
    const kiosk = all.filter((p) => p.origin === NEW_ENUM_VALUES.origin);
    expect(kiosk.length).toBeGreaterThan(0);
    expect(kiosk.every((p) => p.method === NEW_ENUM_VALUES.method)).toBe(true);
  });

  it('sends an adjustment status and a regime the spec does not list, and truth has them', async () => {
    const requests = (await get(emu, 'adjustment', { begin_date: '2024-01-01', end_date: '2024-01-31' }))
      .concat(await get(emu, 'adjustment', { begin_date: '2024-06-01', end_date: '2024-06-30' }))
      .flatMap((c) => c.adjustments as Json[]);
    expect(requests.map((a) => a.status)).toContain(NEW_ENUM_VALUES.adjustmentStatus);
    const overtime = await get(emu, 'overtime', { date: '2025-03-14' });
    const odd = overtime.filter((o) => o.regime === NEW_ENUM_VALUES.regime);
    expect(odd).toHaveLength(1);
    const bank = emu.truth.hourBank(emu.companies[0]!.cnpj, '2025-03-14');
    expect(bank.filter((b) => b.regime === NEW_ENUM_VALUES.regime).map((b) => b.cpf)).toEqual([
      odd[0]!.national_registry,
    ]);
  });
});

describe('quirk unpaddedCpf', () => {
  it('sends one CPF without its leading zeros; truth holds it padded; filters take either form', async () => {
    const people = emu.companies.flatMap((co) => emu.truth.collaborators(co.cnpj));
    const odd = people.filter((c) => c.sentNationalRegistry !== c.national_registry);
    expect(odd).toHaveLength(1);
    const person = odd[0]!;
    expect(person.national_registry).toMatch(/^00\d{9}$/);
    expect(isValidCpf(person.national_registry)).toBe(true);
    expect(person.sentNationalRegistry).toBe(person.national_registry.replace(/^0+/, ''));
    expect((await get(emu, 'collaborator')).map((c) => c.national_registry)).toContain(
      person.sentNationalRegistry,
    );
    for (const cpf of [person.national_registry, person.sentNationalRegistry]) {
      const found = await get(emu, 'point/getFromPeriod', {
        begin_date: MONTH.from,
        end_date: MONTH.to,
        'national_registry_list[]': cpf,
      });
      expect(found.map((c) => c.national_registry)).toEqual([person.sentNationalRegistry]);
      const late = await get(emu, 'overtime', { date: '2025-03-14', national_registry: cpf });
      expect(late.map((c) => c.national_registry)).toEqual([person.sentNationalRegistry]);
    }
  });
});

describe('quirks duplicateCpf and rehireInMonth', () => {
  it('has two concurrently active records of one CPF in the headquarters, both in every endpoint', async () => {
    const hq = emu.companies[0]!.cnpj;
    const dup = emu.truth.duplicates(hq).find((d) => d.kind === 'duplicateCpf')!;
    expect(dup.records).toHaveLength(2);
    expect(new Set(dup.records.map((r) => r.registrationNumber)).size).toBe(2);
    const mine = (items: Item[]) =>
      items.filter((c) => c.national_registry === dup.cpf && c.company.national_registry === hq);
    expect(mine(await get(emu, 'collaborator'))).toHaveLength(2);
    expect(
      mine(await get(emu, 'point/getFromPeriod', { begin_date: MONTH.from, end_date: MONTH.to })),
    ).toHaveLength(2);
    const overtime = mine(await get(emu, 'overtime', { date: '2025-03-14' }));
    expect(overtime.map((o) => o.registration_number).sort()).toEqual(
      dup.records.map((r) => r.registrationNumber).sort(),
    );
    const totals = mine(
      await get(emu, 'collaborator/totalHours', { begin_date: MONTH.from, end_date: MONTH.to }),
    );
    const truth = emu.truth.hourTotals(hq, MONTH.from, MONTH.to).filter((t) => t.cpf === dup.cpf);
    expect(totals.map((t) => durationToSeconds(String((t.total_hours as Json).worked_time))).sort()).toEqual(
      truth.map((t) => t.totals.worked_time).sort(),
    );
    expect(new Set(truth.map((t) => t.totals.worked_time)).size).toBe(2);
  });

  it('has a collaborator dismissed and admitted again with a new registration in one month', async () => {
    const [cnpj, rehire] = emu.companies
      .flatMap((co) => emu.truth.duplicates(co.cnpj).map((d) => [co.cnpj, d] as const))
      .find(([, d]) => d.kind === 'rehireInMonth')!;
    const [old, again] = rehire.records;
    expect(old!.dismissalDate!.slice(0, 7)).toBe(again!.admissionDate.slice(0, 7));
    expect(old!.registrationNumber).not.toBe(again!.registrationNumber);
    const month = old!.dismissalDate!.slice(0, 7);
    const period = { begin_date: `${month}-01`, end_date: `${month}-28` };
    const mine = (items: Item[]) =>
      items.filter((c) => c.national_registry === rehire.cpf && c.company.national_registry === cnpj);
    const days = mine(await get(emu, 'point/getFromPeriod', period)).map((c) =>
      (c.days as { date: string }[]).map((d) => d.date),
    );
    expect(days).toHaveLength(2);
    expect(days[0]!.at(-1)).toBe(old!.dismissalDate);
    expect(days[1]![0]).toBe(again!.admissionDate);
    expect(mine(await get(emu, 'collaborator/totalHours', period))).toHaveLength(2);
    expect(
      emu.truth.hourTotals(cnpj, period.begin_date, period.end_date).filter((t) => t.cpf === rehire.cpf),
    ).toHaveLength(2);
  });
});

describe('quirk otherTimeZone', () => {
  it('puts the first branch in a state outside Brasília time, its date-times in that local time', async () => {
    const branch = emu.companies[1]!.cnpj;
    const zone = emu.truth.timeZone(branch);
    expect(['America/Manaus', 'America/Cuiaba', 'America/Rio_Branco']).toContain(zone);
    const record = (await get<Json[]>(emu, 'company')).find((c) => c.national_registry === branch)!;
    // CEPs of Amazonas (69000-69299, 69400-69899), Acre (69900-69999), Mato Grosso (78000-78899).
    expect(String(record.zip_code)).toMatch(/^(69[0-24-9]|699|78[0-8])\d{5}$/);
    const p = emu.truth.points(branch, MONTH.from, MONTH.to)[0]!;
    expect(p.instant).toBe(localToUtc(p.datetime, zone).toISOString());
    expect(Date.parse(p.instant) - Date.parse(`${p.datetime.replace(' ', 'T')}Z`)).toBeGreaterThanOrEqual(
      4 * 3600_000,
    );
    expect(emu.truth.timeZone(emu.companies[0]!.cnpj)).toBe('America/Sao_Paulo');
  });
});

describe('quirk contradictions', () => {
  const hq = () => emu.companies[0]!.cnpj;
  const workedOf = (item: Item, key: string) => durationToSeconds(String((item.total_hours as Json)[key]));

  it("counts a phantom 8-hour day in one collaborator's totals that no day object holds", async () => {
    const { totals } = emu.truth.contradictions(hq(), MONTH.from, MONTH.to);
    expect(totals).toEqual([
      {
        cpf: totals[0]!.cpf,
        collaboratorId: totals[0]!.collaboratorId,
        date: '2025-02-15',
        seconds: 8 * 3600,
      },
    ]);
    const { cpf } = totals[0]!;
    const mine = (items: Item[]) =>
      items.filter((c) => c.national_registry === cpf && c.company.national_registry === hq());
    const [stated] = mine(
      await get(emu, 'collaborator/totalHours', { begin_date: MONTH.from, end_date: MONTH.to }),
    );
    const [listed] = mine(
      await get(emu, 'point/getFromPeriod', { begin_date: MONTH.from, end_date: MONTH.to }),
    );
    const days = (listed!.days as { worked_time: string }[]).reduce(
      (sum, d) => sum + durationToSeconds(d.worked_time),
      0,
    );
    expect(workedOf(stated!, 'worked_actual_time') - days).toBe(8 * 3600);
    // Without the quirk the same collaborator's totals are the sum of its days.
    const [plainTotals] = mine(
      await get(plain, 'collaborator/totalHours', { begin_date: MONTH.from, end_date: MONTH.to }),
    );
    expect(workedOf(plainTotals!, 'worked_actual_time')).toBe(days);
    expect(
      emu.truth.hourTotals(hq(), MONTH.from, MONTH.to).find((t) => t.cpf === cpf)!.totals.worked_actual_time,
    ).toBe(days + 8 * 3600);
  });

  it("lists another collaborator's first worked day of the month with its worked time but without its punches", async () => {
    const { punches } = emu.truth.contradictions(hq(), MONTH.from, MONTH.to);
    expect(punches).toHaveLength(1);
    const day = punches[0]!;
    expect(day.pointIds.length).toBeGreaterThanOrEqual(2);
    expect(day.workedSeconds).toBeGreaterThan(0);
    const [listed] = (
      await get(emu, 'point/getFromPeriod', { begin_date: day.date, end_date: day.date })
    ).filter((c) => c.national_registry === day.cpf && c.company.national_registry === hq());
    const [sent] = listed!.days as { worked_time: string; points: Json[] }[];
    expect([durationToSeconds(sent!.worked_time), sent!.points]).toEqual([day.workedSeconds, []]);
    expect(emu.truth.pointIds(hq(), day.date, day.date).filter((id) => day.pointIds.includes(id))).toEqual(
      [],
    );
    expect(plain.truth.pointIds(hq(), day.date, day.date)).toEqual(expect.arrayContaining([...day.pointIds]));
    expect(plain.truth.contradictions(hq(), MONTH.from, MONTH.to)).toEqual({ totals: [], punches: [] });
  });
});

describe('quirk extraFields', () => {
  it('adds a field the spec does not describe to every punch, and only with the quirk', async () => {
    const { point } = emu.truth.quirks().extraFields;
    const params = { begin_date: MONTH.from, end_date: MONTH.to };
    const withQuirk = points(await get(emu, 'point/getFromPeriod', params));
    expect(withQuirk.length).toBeGreaterThan(0);
    expect(withQuirk.every((p) => typeof p[point] === 'string')).toBe(true);
    expect(points(await get(plain, 'point/getFromPeriod', params)).some((p) => point in p)).toBe(false);
  });
});

describe('determinism', () => {
  it('gives the same bytes with the same quirks, and each quirk can be switched alone', async () => {
    const again = await startEmulator({
      seed: 'quirks',
      scale: 'small',
      today: TODAY,
      quirks: [...QUIRK_NAMES],
    });
    const only = await startEmulator({
      seed: 'quirks',
      scale: 'small',
      today: TODAY,
      quirks: ['unpaddedCpf'],
    });
    try {
      const path = 'point/getFromPeriod';
      const params = { begin_date: MONTH.from, end_date: MONTH.to };
      expect(JSON.stringify(await get(again, path, params))).toBe(
        JSON.stringify(await get(emu, path, params)),
      );
      expect(only.truth.quirks().enabled).toMatchObject({
        unpaddedCpf: true,
        nulls: false,
        duplicateCpf: false,
      });
      expect(points(await get(only, path, params)).every((p) => p.geolocation !== null)).toBe(true);
    } finally {
      await again.close();
      await only.close();
    }
  });
});
