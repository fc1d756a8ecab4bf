/**
 * Conformance of the emulator with the Customer API v2 spec, walked over HTTP with the
 * project's ApiClient (which validates every response against the spec's schemas):
 * every endpoint of spec §4, every error row of spec §7, and the rules of spec 1.1–1.4
 * and §8. The last test checks that nothing was left out.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions, type Scope } from '../src/api/client.js';
import { READ_ENDPOINT_NAMES, WRITE_ENDPOINT_NAMES, type StreamEndpoint } from '../src/api/endpoints.js';
import { API_ERROR_CODES } from '../src/api/errors.js';
import type { Params } from '../src/api/query.js';
import type { ReadDeclaration } from '../src/resources/declaration.js';
import { inconsistency } from '../src/resources/inconsistencies.js';
import { CATALOG } from '../src/resources/index.js';
import { DriftWatch, type DriftEvent } from '../src/api/drift.js';
import type { CollaboratorPoints } from '../src/api/schemas.js';
import { durationToSeconds } from '../src/util/duration.js';
import { encodePng, facePng } from '../src/emulator/attachments.js';
import { startEmulator, type RunningEmulator, type TruthCollaborator } from '../src/emulator/index.js';

const TODAY = '2025-03-15';
const FEB = { beginDate: '2025-02-01', endDate: '2025-02-28' };

let emu: RunningEmulator;
let writable: RunningEmulator;
const clients: ApiClient[] = [];
const endpointsSeen = new Set<string>();
/** Every read a declaration describes inline, outside the endpoint table, with its resource's read kind. */
const INLINE_READS = Object.entries(CATALOG).flatMap(([resource, d]) =>
  d.read === 'group'
    ? []
    : (d.reads as readonly ReadDeclaration[]).flatMap((read) =>
        typeof read.endpoint === 'string' ? [] : [{ resource, kind: d.read, read, endpoint: read.endpoint }],
      ),
);
const codesSeen = new Set<string>();
/** What the client reported as outside the spec (a new value, a field no schema names). */
const drift: DriftEvent[] = [];
const driftWatch = new DriftWatch((e) => drift.push(e));

/** A client that does not retry, so each error surfaces as it was answered. */
function clientFor(target: RunningEmulator, token: string, extra: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({
    baseUrl: target.url,
    token,
    maxAttempts: 1,
    retryRateLimited: false,
    drift: driftWatch,
    hooks: {
      onResponse: (e) => {
        endpointsSeen.add(e.endpoint);
        if (e.code) codesSeen.add(e.code);
      },
    },
    ...extra,
  });
  clients.push(c);
  return c;
}

/** Expects a rejection with this status and code (and, optionally, these missing fields). */
async function expectApiError(
  p: Promise<unknown>,
  status: number,
  code: string,
  payload?: string[],
): Promise<void> {
  const err = (await p.then(
    () => {
      throw new Error(`expected ${status} ${code}, got a success`);
    },
    (e: unknown) => e,
  )) as { status?: number; code?: string; payloadDataRequired?: readonly string[] };
  expect({ status: err.status, code: err.code }).toEqual({ status, code });
  if (payload) expect(err.payloadDataRequired).toEqual(payload);
}

/** The elements of a list answer, each validated by the client: the first one its schema refuses fails the call. */
async function elementsOf<T>(
  client: ApiClient,
  endpoint: StreamEndpoint<T>,
  query: Params,
  scope?: Scope,
): Promise<T[]> {
  const out: T[] = [];
  for await (const e of client.stream(endpoint, query, scope)) {
    if (!e.ok) throw e.error;
    out.push(e.value);
  }
  return out;
}

/** Sum of complete punch pairs of a day, in seconds (spec 2.12). */
function pairSum(points: { datetime: string }[]): number {
  const secs = points.map((p) => {
    const [h, m, s] = p.datetime.slice(11).split(':').map(Number) as [number, number, number];
    return h * 3600 + m * 60 + s;
  });
  let total = 0;
  for (let i = 0; i + 1 < secs.length; i += 2) total += secs[i + 1]! - secs[i]!;
  return total;
}

let hq: ApiClient;
let branch1: ApiClient;
let branch2: ApiClient;
let hqCnpj: string;
let b1Cnpj: string;
let b2Cnpj: string;
let hqPeople: TruthCollaborator[];
let b2People: TruthCollaborator[];

beforeAll(async () => {
  emu = await startEmulator({ seed: 'conformance', scale: 'small', today: TODAY });
  writable = await startEmulator({ seed: 'conformance', scale: 'small', today: TODAY });
  [hqCnpj, b1Cnpj, b2Cnpj] = emu.companies.map((c) => c.cnpj) as [string, string, string];
  hq = clientFor(emu, emu.headquartersToken);
  branch1 = clientFor(emu, emu.companies[1]!.token);
  branch2 = clientFor(emu, emu.companies[2]!.token);
  hqPeople = emu.truth.collaborators(hqCnpj);
  b2People = emu.truth.collaborators(b2Cnpj);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emu?.close();
  await writable?.close();
});

describe('spec 4.1 reads', () => {
  it('collaborator lists the active collaborators of the token company, each with its company block', async () => {
    const list = await hq.listCollaborators();
    expect(list.map((c) => c.national_registry).sort()).toEqual(
      hqPeople
        .filter((c) => c.listed)
        .map((c) => c.national_registry)
        .sort(),
    );
    expect(list.every((c) => c.company.national_registry === hqCnpj)).toBe(true);
    const dismissed = hqPeople.find(
      (c) => c.dismissed && !hqPeople.some((o) => o !== c && o.national_registry === c.national_registry),
    );
    expect(dismissed).toBeDefined();
    expect(list.some((c) => c.national_registry === dismissed!.national_registry)).toBe(false);
  });

  it('point/getFromPeriod returns days whose worked_time is the sum of their punch pairs', async () => {
    const res = await hq.request('point/getFromPeriod', {
      query: { begin_date: FEB.beginDate, end_date: FEB.endDate },
    });
    expect(res.meta).toEqual({ begin_date: FEB.beginDate, end_date: FEB.endDate });
    const data = res.data as CollaboratorPoints[];
    expect(data.length).toBeGreaterThan(0);
    let points = 0;
    for (const c of data) {
      expect(c.company.national_registry).toBe(hqCnpj);
      for (const d of c.days) {
        expect(durationToSeconds(d.worked_time as string)).toBe(pairSum(d.points));
        for (const p of d.points) expect(p.datetime.startsWith(d.date)).toBe(true);
        points += d.points.length;
      }
    }
    expect(points).toBeGreaterThan(50);
    expect(
      data.flatMap((c) => c.days.flatMap((d) => d.points.map((p) => p.point_id))).sort((a, b) => a - b),
    ).toEqual(emu.truth.pointIds(hqCnpj, FEB.beginDate, FEB.endDate).sort((a, b) => a - b));
  });

  it('point/getFromPeriod with decimal_format=1 gives worked_time as decimal hours', async () => {
    const [plain, decimal] = await Promise.all([
      hq.getPointsFromPeriod(FEB),
      hq.getPointsFromPeriod({ ...FEB, decimalFormat: true }),
    ]);
    const a = plain[0]!.days.find((d) => d.points.length > 0)!;
    const b = decimal[0]!.days.find((d) => d.date === a.date)!;
    expect(typeof b.worked_time).toBe('number');
    expect(b.worked_time).toBeCloseTo(durationToSeconds(a.worked_time as string) / 3600, 2);
  });

  it('collaborator/totalHours derives worked_actual_time from the same days', async () => {
    const [totals, points] = await Promise.all([hq.getTotalHours(FEB), hq.getPointsFromPeriod(FEB)]);
    expect(totals.length).toBe(points.length);
    for (const t of totals) {
      const p = points.find(
        (x) => x.national_registry === t.national_registry && x.admission_date === t.admission_date,
      )!;
      const sum = p.days.reduce((s, d) => s + durationToSeconds(d.worked_time as string), 0);
      expect(durationToSeconds(t.total_hours.worked_actual_time as string)).toBe(sum);
    }
    const dec = await hq.getTotalHours({ ...FEB, decimalFormat: true });
    expect(Object.values(dec[0]!.total_hours).every((v) => typeof v === 'number')).toBe(true);
  });

  it('point/audit returns the PNG audit photo of a punch that has one', async () => {
    const days = (await hq.getPointsFromPeriod(FEB)).flatMap((c) => c.days);
    const withPhoto = days.flatMap((d) => d.points).find((p) => p.has_audit_photo)!;
    const res = await hq.request('point/audit', { query: { point_id: withPhoto.point_id } });
    expect(res.meta).toEqual({ point_id: withPhoto.point_id });
    expect(res.data.point_id).toBe(withPhoto.point_id);
    expect(Buffer.from(res.data.base64, 'base64').subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(res.data.mime_type).toBe('image/png');
  });

  it('tardiness lists late arrivals within two hours of the journey start (spec 2.8)', async () => {
    const list = await hq.getTardiness(
      { beginDate: '2024-10-01', endDate: '2024-10-31' },
      { includeBranches: true },
    );
    const entries = list.flatMap((c) => c.tardiness);
    expect(entries.length).toBeGreaterThan(0);
    for (const t of entries) {
      const late = durationToSeconds(`${t.minutes_late}:00`);
      expect(late).toBeGreaterThan(0);
      expect(late).toBeLessThan(7200);
      expect(t.all_points[0]).toBe(t.punch_in);
    }
  });

  it('adjustment lists requests with the statuses of spec 2.9', async () => {
    const res = await hq.request('adjustment', {
      query: { begin_date: '2024-10-01', end_date: '2024-10-31' },
      scope: { includeBranches: true },
    });
    const all = res.data.flatMap((c) => c.adjustments);
    expect(all.length).toBeGreaterThan(0);
    expect(new Set(all.map((a) => a.status)).size).toBeGreaterThan(0);
    expect(res.meta).toEqual({ begin_date: '2024-10-01', end_date: '2024-10-31' });
  });

  it('inconsistency lists occurrences with signed values', async () => {
    const list = await elementsOf(
      hq,
      inconsistency,
      { begin_date: '2024-10-01', end_date: '2024-10-31' },
      { includeBranches: true },
    );
    const all = list.flatMap((c) => c.occurrences);
    expect(all.length).toBeGreaterThan(0);
    expect(all.some((o) => o.value.startsWith('-'))).toBe(true);
  });

  it('overtime gives one balance per collaborator for the date, in the four regimes', async () => {
    const res = await hq.request('overtime', {
      query: { date: '2025-03-10' },
      scope: { includeBranches: true },
    });
    expect(res.meta).toEqual({ date: '2025-03-10' });
    expect(new Set(res.data.map((b) => b.regime))).toEqual(
      new Set(['BH', 'HE', 'Híbrido (BH)', 'Híbrido (HE)']),
    );
    const secs = res.data.map((b) => durationToSeconds(b.accumulated_balance));
    expect(Math.min(...secs)).toBeLessThan(0);
    expect(Math.max(...secs)).toBeGreaterThan(99 * 3600);
  });

  it('absence/types lists global and company-defined types', async () => {
    const [mine, branch] = await Promise.all([hq.listAbsenceTypes(), branch1.listAbsenceTypes()]);
    expect(mine.some((t) => t.description === 'Férias')).toBe(true);
    const onlyHq = mine.filter((t) => !branch.some((b) => b.id === t.id));
    expect(onlyHq.length).toBeGreaterThan(0);
  });

  it('absence/getFromPeriod returns absences overlapping the period, meta as sent', async () => {
    const q = { begin_date: '2024-06-01 00:00:00', end_date: '2024-07-01 23:59:59' };
    const res = await hq.request('absence/getFromPeriod', { query: q, scope: { includeBranches: true } });
    expect(res.meta).toEqual(q);
    expect(res.data.length).toBeGreaterThan(0);
    for (const a of res.data) {
      expect(a.begin_date <= q.end_date && a.end_date >= q.begin_date).toBe(true);
      expect(a.collaborators.length).toBeGreaterThan(0);
    }
  });

  it('absence/attachment returns the files of an absence, or an empty list', async () => {
    const all = (
      await Promise.all(
        ['2024-04', '2024-05', '2024-06', '2024-07', '2024-08', '2024-09'].map((m) =>
          hq.getAbsencesFromPeriod(
            { beginDate: `${m}-01 00:00:00`, endDate: `${m}-28 23:59:59` },
            { includeBranches: true },
          ),
        ),
      )
    ).flat();
    const withFile = all.find((a) => a.has_attachment)!;
    const without = all.find((a) => !a.has_attachment)!;
    const res = await hq.request('absence/attachment', {
      query: { absence_id: withFile.absence_id },
      scope: { includeBranches: true },
    });
    expect(res.meta).toEqual({ absence_id: withFile.absence_id });
    expect(res.data.length).toBeGreaterThan(0);
    const first = Buffer.from(res.data[0]!.base64, 'base64');
    expect(first.length).toBeGreaterThan(50);
    expect(await hq.getAbsenceAttachments(without.absence_id, { includeBranches: true })).toEqual([]);
  });

  it('company returns one object, or an array with include_branches=1', async () => {
    expect((await hq.getCompany()).national_registry).toBe(hqCnpj);
    expect((await hq.getCompany({ companyNationalRegistry: b1Cnpj })).national_registry).toBe(b1Cnpj);
    const group = await hq.listGroupCompanies();
    expect(group.map((c) => c.national_registry)).toEqual([hqCnpj, b1Cnpj, b2Cnpj]);
  });

  it('economic-group gives the whole active group to the headquarters and only itself to a branch', async () => {
    const group = await hq.getEconomicGroup();
    expect(group.map((g) => [g.national_registry, g.is_headquarter])).toEqual([
      [hqCnpj, true],
      [b1Cnpj, false],
      [b2Cnpj, false],
    ]);
    expect(group.some((g) => g.national_registry === emu.inactiveCompany.cnpj)).toBe(false);
    expect((await branch1.getEconomicGroup()).map((g) => g.national_registry)).toEqual([b1Cnpj]);
  });

  it('the nine lookup lists return the active records of the company (units: default first)', async () => {
    const truth = emu.truth.lookups(hqCnpj);
    const ids = (l: { id: number }[]): number[] => l.map((r) => r.id);
    expect(ids(await hq.listDepartments())).toEqual(truth.departments);
    expect(ids(await hq.listOccupations())).toEqual(truth.occupations);
    expect(ids(await hq.listFiredTypes())).toEqual(truth.dismissal_types);
    expect(ids(await hq.listCostCenters())).toEqual(truth.cost_centers);
    expect(ids(await hq.listCollaboratorSettings())).toEqual(truth.collaborator_settings);
    expect(ids(await hq.listPointRules())).toEqual(truth.point_rules);
    expect(ids(await hq.listJourneys())).toEqual(truth.journeys);
    expect(ids(await hq.listBarriers())).toEqual(truth.digital_fences);
    const units = ids(await hq.listUnits());
    expect(units).toEqual(truth.units);
    expect(units[0]).not.toBe(Math.min(...units));
  });
});

describe('the endpoints declarations describe inline', () => {
  // Asked as the sync asks them (items aside: they need an id).
  const TARGETS = {
    list: {},
    month: { window: { from: '2024-10-01', to: '2024-10-31' } },
    day: { date: '2025-03-10' },
  } as const;
  const reads = INLINE_READS.flatMap((r) => (r.kind === 'items' ? [] : [{ ...r, target: TARGETS[r.kind] }]));

  it.each(reads)(
    '$resource: the answer to its query holds only elements its schema accepts',
    async ({ read, endpoint, target }) => {
      expect(
        (await elementsOf(hq, endpoint, read.query(target), { includeBranches: true })).length,
      ).toBeGreaterThan(0);
    },
  );
});

describe('spec 1.3 list parameters', () => {
  it('repeated name[] keys select several collaborators', async () => {
    const cpfs = hqPeople
      .filter((c) => c.listed)
      .slice(0, 2)
      .map((c) => c.national_registry);
    const list = await hq.getPointsFromPeriod({ ...FEB, nationalRegistryList: cpfs });
    expect(new Set(list.map((c) => c.national_registry))).toEqual(new Set(cpfs));
    const one = hqPeople.find((c) => c.listed)!;
    const byEmail = await hq.getTotalHours({ ...FEB, emailList: [one.email!] });
    expect(byEmail.map((c) => c.email)).toContain(one.email);
  });

  it('a list name without [], a comma-separated value or a JSON value gives 422', async () => {
    const cpf = hqPeople[0]!.national_registry;
    const period = { begin_date: FEB.beginDate, end_date: FEB.endDate };
    await expectApiError(
      hq.request('point/getFromPeriod', { query: { ...period, national_registry_list: cpf } }),
      422,
      'invalid_list_parameter',
    );
    await expectApiError(
      hq.request('point/getFromPeriod', {
        query: { ...period, 'national_registry_list[]': `${cpf},${cpf}` },
      }),
      422,
      'invalid_list_parameter',
    );
    await expectApiError(
      hq.request('collaborator/totalHours', { query: { ...period, 'email_list[]': '["a@b.c"]' } }),
      422,
      'invalid_list_parameter',
    );
  });

  it('spec 1.3.1: nothing found is 200 with an empty data array and the meta of the filters', async () => {
    const q = { begin_date: '2020-01-01', end_date: '2020-01-31' };
    const res = await hq.request('tardiness', { query: q });
    expect(res.status).toBe(200);
    expect(res.data).toEqual([]);
    expect(res.meta).toEqual(q);
    expect(await hq.getPointsFromPeriod({ ...FEB, nationalRegistryList: ['00000000191'] })).toEqual([]);
  });
});

describe('spec 1.4 economic groups', () => {
  it('include_branches aggregates the group; company_national_registry restricts it', async () => {
    const all = await hq.listCollaborators({ includeBranches: true });
    expect(new Set(all.map((c) => c.company.national_registry))).toEqual(new Set([hqCnpj, b1Cnpj, b2Cnpj]));
    const one = await hq.listCollaborators({ companyNationalRegistry: b2Cnpj });
    expect(one.length).toBeGreaterThan(0);
    expect(one.every((c) => c.company.national_registry === b2Cnpj)).toBe(true);
  });

  it('a branch token sees only its own company, include_branches or not', async () => {
    const list = await branch1.listCollaborators({ includeBranches: true });
    expect(list.every((c) => c.company.national_registry === b1Cnpj)).toBe(true);
    await expectApiError(
      branch1.listCollaborators({ companyNationalRegistry: hqCnpj }),
      404,
      'company_not_found',
    );
    expect((await branch1.listCollaborators({ companyNationalRegistry: b1Cnpj })).length).toBe(list.length);
  });

  it('a collaborator filter searches only the scope (rule 5), and one person in two companies appears once per company (rule 7)', async () => {
    const b1People = emu.truth.collaborators(b1Cnpj);
    const shared = b1People.find((p) => hqPeople.some((h) => h.national_registry === p.national_registry))!;
    const onlyB2 = b2People.find(
      (p) => p.listed && !hqPeople.some((h) => h.national_registry === p.national_registry),
    )!;
    expect(await hq.getTotalHours({ ...FEB, nationalRegistryList: [onlyB2.national_registry] })).toEqual([]);
    const found = await hq.getTotalHours(
      { ...FEB, nationalRegistryList: [onlyB2.national_registry] },
      { includeBranches: true },
    );
    expect(found.map((c) => c.company.national_registry)).toEqual([b2Cnpj]);
    const twice = await hq.getPointsFromPeriod(
      { ...FEB, nationalRegistryList: [shared.national_registry] },
      { includeBranches: true },
    );
    expect(twice.map((c) => c.company.national_registry).sort()).toEqual([hqCnpj, b1Cnpj].sort());
  });

  it('every record of period endpoints carries the company it belongs to', async () => {
    const q = { beginDate: '2024-10-01', endDate: '2024-10-31' };
    for (const cnpj of [b1Cnpj, b2Cnpj]) {
      const lists = await Promise.all([
        hq.getTardiness(q, { companyNationalRegistry: cnpj }),
        hq.getAdjustments(q, { companyNationalRegistry: cnpj }),
        hq.getOvertime({ date: '2024-10-15' }, { companyNationalRegistry: cnpj }),
        // The client's schemas keep only spec 2.4's fields, so lookups are read raw here.
        fetch(`${emu.url}/customer/v2/department?company_national_registry=${cnpj}`, {
          headers: { apiServiceToken: emu.headquartersToken },
        })
          .then((r) => r.json() as Promise<{ data: unknown[] }>)
          .then((b) => b.data),
      ]);
      for (const list of lists) {
        expect(list.length).toBeGreaterThan(0);
        for (const r of list)
          expect((r as { company: { national_registry: string } }).company.national_registry).toBe(cnpj);
      }
    }
  });
});

describe('spec §8 period limit', () => {
  it('accepts exactly 31 days and rejects 32 with 422 date_range_exceeded', async () => {
    expect(
      (await hq.getTardiness({ beginDate: '2025-01-01', endDate: '2025-01-31' })).length,
    ).toBeGreaterThanOrEqual(0);
    await expectApiError(
      hq.getTardiness({ beginDate: '2025-01-01', endDate: '2025-02-01' }),
      422,
      'date_range_exceeded',
    );
    await expectApiError(
      hq.getAbsencesFromPeriod({ beginDate: '2025-01-01 00:00:00', endDate: '2025-02-01 00:00:00' }),
      422,
      'date_range_exceeded',
    );
  });

  it('with strict, a span of exactly 31 days is rejected too', async () => {
    const strict = await startEmulator({ seed: 'conformance', scale: 'small', today: TODAY, strict: true });
    try {
      const c = clientFor(strict, strict.headquartersToken);
      await expectApiError(
        c.getTotalHours({ beginDate: '2025-01-01', endDate: '2025-01-31' }),
        422,
        'date_range_exceeded',
      );
      expect(Array.isArray(await c.getTotalHours({ beginDate: '2025-01-01', endDate: '2025-01-30' }))).toBe(
        true,
      );
    } finally {
      await strict.close();
    }
  });
});

describe('spec §7 errors', () => {
  it('401 invalid_service_token for a missing, unknown or inactive-company token', async () => {
    await expectApiError(clientFor(emu, 'not-a-token').listCollaborators(), 401, 'invalid_service_token');
    await expectApiError(
      clientFor(emu, emu.inactiveCompany.token).getCompany(),
      401,
      'invalid_service_token',
    );
    const res = await fetch(`${emu.url}/customer/v2/collaborator`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_service_token' } });
  });

  it('404 company_not_found for a CNPJ outside the accessible group', async () => {
    await expectApiError(
      hq.listUnits({ companyNationalRegistry: emu.inactiveCompany.cnpj }),
      404,
      'company_not_found',
    );
    await expectApiError(
      hq.getPointsFromPeriod(FEB, { companyNationalRegistry: '11222333000181' }),
      404,
      'company_not_found',
    );
  });

  it('422 validation_failed lists the missing fields in payload_data_required, beside error', async () => {
    await expectApiError(
      hq.request('point/getFromPeriod', { query: { begin_date: FEB.beginDate } }),
      422,
      'validation_failed',
      ['end_date'],
    );
    await expectApiError(hq.request('overtime', { query: {} }), 422, 'validation_failed', ['date']);
    const res = await fetch(`${emu.url}/customer/v2/tardiness`, {
      headers: { apiServiceToken: emu.headquartersToken },
    });
    expect(await res.json()).toEqual({
      error: { code: 'validation_failed', message: expect.any(String) },
      payload_data_required: ['begin_date', 'end_date'],
    });
  });

  it('400 for a request body that is not JSON', async () => {
    const res = await fetch(`${emu.url}/customer/v2/department`, {
      method: 'POST',
      headers: { apiServiceToken: emu.headquartersToken, 'content-type': 'application/json' },
      body: '{"description":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_request');
  });

  it('403 generic server error when the service fails (fault injection)', async () => {
    const faulty = await startEmulator({
      seed: 'conformance',
      scale: 'small',
      today: TODAY,
      faults: { error403: 1 },
    });
    try {
      await expectApiError(clientFor(faulty, faulty.headquartersToken).listUnits(), 403, 'server_error');
    } finally {
      await faulty.close();
    }
  });

  it('point/audit: 404 point_not_found and 404 audit_photo_not_found', async () => {
    const points = (await hq.getPointsFromPeriod(FEB)).flatMap((c) => c.days.flatMap((d) => d.points));
    const noPhoto = points.find((p) => !p.has_audit_photo)!;
    await expectApiError(hq.getAuditPhoto(noPhoto.point_id), 404, 'audit_photo_not_found');
    await expectApiError(hq.getAuditPhoto(2_147_000_000), 404, 'point_not_found');
    const branchPoint = (await branch1.getPointsFromPeriod(FEB)).flatMap((c) =>
      c.days.flatMap((d) => d.points),
    )[0]!;
    await expectApiError(hq.getAuditPhoto(branchPoint.point_id), 404, 'point_not_found');
  });

  it('absence/attachment: 404 not_found for an absence that does not exist or is of another company', async () => {
    await expectApiError(hq.getAbsenceAttachments(123_456_789), 404, 'not_found');
    const b1 = (
      await branch1.getAbsencesFromPeriod({
        beginDate: '2024-06-01 00:00:00',
        endDate: '2024-07-01 23:59:59',
      })
    )[0]!;
    await expectApiError(hq.getAbsenceAttachments(b1.absence_id), 404, 'not_found');
  });

  it('POST collaborator: 422 for missing fields, 404 for each reference of another company', async () => {
    const branchLookups = emu.truth.lookups(b1Cnpj);
    const mine = emu.truth.lookups(hqCnpj);
    const body = {
      name: 'Teste Conformidade',
      national_registry: '52998224725',
      email: 'teste@example.com',
      birth_date: '1990-01-01',
      begin_date: '2025-01-02',
      journey_id: mine.journeys[0]!,
      cost_center_id: mine.cost_centers[0]!,
      department_id: mine.departments[0]!,
      unit_id: mine.units[0]!,
      collaborator_settings_id: mine.collaborator_settings[0]!,
      point_rule_id: mine.point_rules[0]!,
    };
    await expectApiError(hq.request('POST collaborator', { body: { name: 'x' } }), 422, 'validation_failed', [
      'national_registry',
      'email',
      'birth_date',
      'begin_date',
      'journey_id',
      'cost_center_id',
      'department_id',
      'unit_id',
      'collaborator_settings_id',
      'point_rule_id',
    ]);
    const cases: [keyof typeof body, number, string][] = [
      ['journey_id', branchLookups.journeys[0]!, 'journey_not_found'],
      ['cost_center_id', branchLookups.cost_centers[0]!, 'cost_center_not_found'],
      ['department_id', branchLookups.departments[0]!, 'department_not_found'],
      ['unit_id', branchLookups.units[0]!, 'unit_not_found'],
      [
        'collaborator_settings_id',
        branchLookups.collaborator_settings[0]!,
        'collaborator_settings_not_found',
      ],
      ['point_rule_id', 999_999, 'point_rule_not_found'],
    ];
    for (const [field, id, code] of cases)
      await expectApiError(hq.createCollaborator({ ...body, [field]: id }), 404, code);
  });

  it('POST collaborator/photo: cpf_not_found, collaborator_not_found, collaborator_fired, invalid_photo, face_recognition_failed', async () => {
    const good = facePng(1).toString('base64');
    const onlyB2 = b2People.find((p) => !hqPeople.some((h) => h.national_registry === p.national_registry))!;
    const fired = hqPeople.find(
      (c) => c.dismissed && !hqPeople.some((o) => o !== c && o.national_registry === c.national_registry),
    )!;
    const active = hqPeople.find((c) => c.listed)!;
    await expectApiError(
      hq.uploadCollaboratorPhoto({ national_registry: '00000000191', photo_base64: good }),
      404,
      'cpf_not_found',
    );
    await expectApiError(
      hq.uploadCollaboratorPhoto({ national_registry: onlyB2.national_registry, photo_base64: good }),
      404,
      'collaborator_not_found',
    );
    await expectApiError(
      hq.uploadCollaboratorPhoto({ national_registry: fired.national_registry, photo_base64: good }),
      422,
      'collaborator_fired',
    );
    const tiny = encodePng(16, 16, new Uint8Array(16 * 16 * 3)).toString('base64');
    await expectApiError(
      hq.uploadCollaboratorPhoto({ national_registry: active.national_registry, photo_base64: tiny }),
      403,
      'invalid_photo',
    );
    await expectApiError(
      hq.uploadCollaboratorPhoto({
        national_registry: active.national_registry,
        photo_base64: `data:image/png;base64,${good}`,
      }),
      403,
      'invalid_photo',
    );
    const broken = Buffer.concat([
      facePng(1).subarray(0, 8),
      Buffer.from('not an IHDR chunk at all'),
    ]).toString('base64');
    await expectApiError(
      hq.uploadCollaboratorPhoto({ national_registry: active.national_registry, photo_base64: broken }),
      403,
      'face_recognition_failed',
    );
  });

  it('PUT collaborator/dismissal: collaborator_not_found, fired_type_not_found, dismissal_date_before_admission_date', async () => {
    const firedType = emu.truth.lookups(hqCnpj).dismissal_types[0]!;
    const active = hqPeople.find((c) => c.listed)!;
    await expectApiError(
      hq.dismissCollaborator({
        dismissal_date: '2025-03-01',
        fired_type_id: firedType,
        collaborator_id: 999_999,
      }),
      404,
      'collaborator_not_found',
    );
    await expectApiError(
      hq.dismissCollaborator({
        dismissal_date: '2025-03-01',
        fired_type_id: 999_999,
        national_registry: active.national_registry,
      }),
      404,
      'fired_type_not_found',
    );
    await expectApiError(
      hq.dismissCollaborator({
        dismissal_date: '1999-01-01',
        fired_type_id: firedType,
        national_registry: active.national_registry,
      }),
      422,
      'dismissal_date_before_admission_date',
    );
    expect(
      emu.truth.collaborators(hqCnpj).find((c) => c.collaboratorId === active.collaboratorId)!.listed,
    ).toBe(true);
  });

  it('POST point: cpf_not_found, collaborator_not_found, collaborator_fired, date_time_greater_than_now, date_begin_less_than_now', async () => {
    const fired = hqPeople.find(
      (c) => c.dismissed && !hqPeople.some((o) => o !== c && o.national_registry === c.national_registry),
    )!;
    const blocked = b2People.find((c) => !c.listed && !c.dismissed)!;
    const active = hqPeople.find((c) => c.listed)!;
    await expectApiError(
      hq.registerPoint({
        national_registry: b2People[1]!.national_registry,
        datetime: '2025-03-14 08:00:00',
      }),
      404,
      'cpf_not_found',
    );
    await expectApiError(
      branch2.registerPoint({
        national_registry: blocked.national_registry,
        datetime: '2025-03-14 08:00:00',
      }),
      404,
      'collaborator_not_found',
    );
    await expectApiError(
      hq.registerPoint({ national_registry: fired.national_registry, datetime: '2025-03-14 08:00:00' }),
      422,
      'collaborator_fired',
    );
    await expectApiError(
      hq.registerPoint({ national_registry: active.national_registry, datetime: '2025-03-16 00:00:00' }),
      422,
      'date_time_greater_than_now',
    );
    await expectApiError(
      hq.registerPoint({ national_registry: active.national_registry, datetime: '1990-01-01 08:00:00' }),
      422,
      'date_begin_less_than_now',
    );
  });

  it('POST absence: 404 absence_type_not_found', async () => {
    const active = hqPeople.find((c) => c.listed)!;
    await expectApiError(
      hq.createAbsence({
        national_registry: [active.national_registry],
        absence_type_id: 999_999,
        description: 'x',
        details: 'y',
        begin_date: '2025-03-03',
        end_date: '2025-03-03',
        paid: true,
        full_day: true,
        sum_on_work_time: true,
        sum_total_on_work_time: true,
      }),
      404,
      'absence_type_not_found',
    );
  });

  it('POST occupation and POST cost-center: 422 invalid_request_payload when the name is missing or empty', async () => {
    await expectApiError(hq.createOccupation({ description: '' }), 422, 'invalid_request_payload');
    await expectApiError(hq.request('POST cost-center', { body: {} }), 422, 'invalid_request_payload');
  });
});

describe('spec 4.2 writes change what reads return', () => {
  let w: ApiClient;
  let people: TruthCollaborator[];
  let cnpj: string;

  beforeAll(() => {
    w = clientFor(writable, writable.headquartersToken);
    cnpj = writable.companies[0]!.cnpj;
    people = writable.truth.collaborators(cnpj);
  });

  it('POST collaborator creates an active collaborator that is listed', async () => {
    const l = writable.truth.lookups(cnpj);
    const { id } = await w.createCollaborator({
      name: 'Joana Prado Lima',
      national_registry: '52998224725',
      email: 'joana.prado@example.com',
      birth_date: '1991-05-10',
      begin_date: '2025-03-03',
      journey_id: l.journeys[0]!,
      cost_center_id: l.cost_centers[0]!,
      department_id: l.departments[0]!,
      unit_id: l.units[0]!,
      collaborator_settings_id: l.collaborator_settings[0]!,
      point_rule_id: l.point_rules[0]!,
      occupation_id: l.occupations[0]!,
    });
    expect(Number.isInteger(id)).toBe(true);
    const listed = (await w.listCollaborators()).find((c) => c.national_registry === '52998224725');
    expect(listed).toMatchObject({
      name: 'Joana Prado Lima',
      admission_date: '2025-03-03',
      company: { national_registry: cnpj },
    });
  });

  it('POST collaborator/photo accepts a frontal PNG', async () => {
    const active = people.find((c) => c.listed)!;
    expect(
      await w.uploadCollaboratorPhoto({
        national_registry: active.national_registry,
        photo_base64: facePng(3).toString('base64'),
      }),
    ).toEqual({
      success: true,
    });
  });

  it('POST point registers a punch that appears with origin API and its SHA-256 receipt', async () => {
    const active = people.find((c) => c.listed)!;
    const before = await w.getPointsFromPeriod({
      beginDate: '2025-03-09',
      endDate: '2025-03-09',
      nationalRegistryList: [active.national_registry],
    });
    const res = await w.request('POST point', {
      body: { national_registry: active.national_registry, datetime: '2025-03-09 10:15:30' },
    });
    expect(res.status).toBe(201);
    expect(res.data.hash).toMatch(/^[0-9a-f]{64}$/);
    const after = await w.getPointsFromPeriod({
      beginDate: '2025-03-09',
      endDate: '2025-03-09',
      nationalRegistryList: [active.national_registry],
    });
    const day = after[0]!.days[0]!;
    const p = day.points.find((x) => x.point_id === res.data.point_id)!;
    expect(p).toMatchObject({ datetime: '2025-03-09 10:15:30', hour: '10:15', origin: 'API' });
    expect(day.points.length).toBe(before[0]!.days[0]!.points.length + 1);
    expect(durationToSeconds(day.worked_time as string)).toBe(pairSum(day.points));
    const expected = createHash('sha256')
      .update(`${cnpj}|${active.national_registry}|2025-03-09 10:15:30|${res.data.point_id}`)
      .digest('hex');
    expect(res.data.hash).toBe(expected);
  });

  it('POST absence (multipart) creates an absence of several collaborators with its attachment', async () => {
    const two = people
      .filter((c) => c.listed)
      .slice(0, 2)
      .map((c) => c.national_registry);
    const pdf = Buffer.from('%PDF-1.4\n% conformance\n');
    const { absence_id } = await w.createAbsence(
      {
        national_registry: two,
        absence_type_id: 6,
        description: 'Treinamento',
        details: 'Brigada de incêndio',
        begin_date: '2025-03-20',
        end_date: '2025-04-02',
        paid: true,
        full_day: true,
        sum_on_work_time: true,
        sum_total_on_work_time: true,
      },
      [{ filename: 'lista.pdf', mimeType: 'application/pdf', content: pdf }],
    );
    const listed = await w.getAbsencesFromPeriod({
      beginDate: '2025-03-25 00:00:00',
      endDate: '2025-03-26 23:59:59',
    });
    const a = listed.find((x) => x.absence_id === absence_id)!;
    expect(a).toMatchObject({
      type: 'Treinamento externo',
      days: 14,
      has_attachment: true,
      begin_date: '2025-03-20 00:00:00',
    });
    expect(a.collaborators.map((c) => c.national_registry).sort()).toEqual([...two].sort());
    const files = await w.getAbsenceAttachments(absence_id);
    expect(files).toMatchObject([
      { filename: 'lista.pdf', mime_type: 'application/pdf', base64: pdf.toString('base64') },
    ]);
  });

  it('POST department, occupation, fired-type and cost-center create active records that are listed', async () => {
    const dep = await w.createDepartment({ description: 'Qualidade' });
    const occ = await w.createOccupation({ description: 'Inspetor de Qualidade', number_cbo: '391205' });
    const fired = await w.createFiredType({ name: 'Falecimento' });
    const cc = await w.createCostCenter({ name: 'CC 600 - Qualidade' });
    expect((await w.listDepartments()).find((d) => d.id === dep.id)?.description).toBe('Qualidade');
    expect((await w.listOccupations()).find((d) => d.id === occ.id)?.description).toBe(
      'Inspetor de Qualidade',
    );
    expect((await w.listFiredTypes()).find((d) => d.id === fired.id)?.name).toBe('Falecimento');
    expect((await w.listCostCenters()).find((d) => d.id === cc.id)?.name).toBe('CC 600 - Qualidade');
  });

  it('PUT collaborator/dismissal removes the collaborator from the list and makes a punch answer collaborator_fired', async () => {
    const target = people.filter(
      (c) => c.listed && people.filter((o) => o.national_registry === c.national_registry).length === 1,
    )[1]!;
    const firedType = writable.truth.lookups(cnpj).dismissal_types[0]!;
    expect(
      await w.dismissCollaborator({
        dismissal_date: '2025-03-10',
        fired_type_id: firedType,
        registration_number: target.registration_number!,
      }),
    ).toEqual({
      success: true,
    });
    expect((await w.listCollaborators()).some((c) => c.national_registry === target.national_registry)).toBe(
      false,
    );
    await expectApiError(
      w.registerPoint({ national_registry: target.national_registry, datetime: '2025-03-14 08:00:00' }),
      422,
      'collaborator_fired',
    );
    const days = (
      await w.getPointsFromPeriod({
        beginDate: '2025-03-01',
        endDate: '2025-03-14',
        nationalRegistryList: [target.national_registry],
      })
    )[0]!.days;
    expect(days[days.length - 1]!.date).toBe('2025-03-10');
  });
});

describe('coverage', () => {
  it('walked every endpoint of spec §4 and every error code of spec §7', () => {
    expect(
      [...READ_ENDPOINT_NAMES, ...INLINE_READS.map((r) => r.endpoint.name), ...WRITE_ENDPOINT_NAMES].filter(
        (e) => !endpointsSeen.has(e),
      ),
    ).toEqual([]);
    expect(API_ERROR_CODES.filter((c) => !codesSeen.has(c))).toEqual([]);
  });

  it('met no field or value outside the spec (spec 1.4 rule 4 puts a company block on every read record)', () => {
    expect(drift).toEqual([]);
  });
});
