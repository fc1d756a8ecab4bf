/**
 * The admin surface (`/__emulator/`) and writes-then-reads beyond the conformance
 * suite: mutations behind the sync's back (delete or move a punch, change a
 * collaborator, dismiss) and writes that reshape later reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CollaboratorAdjustments,
  CollaboratorBlock,
  CollaboratorPoints,
  CollaboratorTotalHours,
} from '../src/api/schemas.js';
import { durationToSeconds } from '../src/util/duration.js';
import { startEmulator, type RunningEmulator, type TruthCollaborator } from '../src/emulator/index.js';

let emu: RunningEmulator;
let hqCnpj: string;

async function api<T>(
  path: string,
  init: RequestInit = {},
  token = emu.headquartersToken,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${emu.url}/customer/v2/${path}`, {
    ...init,
    headers: { apiServiceToken: token, ...(init.headers ?? {}) },
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function admin<T = { data: unknown }>(
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${emu.url}/__emulator/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function daysOf(cpf: string, from: string, to: string): Promise<CollaboratorPoints['days']> {
  const { body } = await api<{ data: CollaboratorPoints[] }>(
    `point/getFromPeriod?begin_date=${from}&end_date=${to}&national_registry_list[]=${cpf}`,
  );
  const listed = body.data.filter((c) => c.days.length > 0);
  return listed[listed.length - 1]!.days;
}

beforeAll(async () => {
  emu = await startEmulator({ seed: 'admin', scale: 'demo', today: '2025-03-15' });
  hqCnpj = emu.companies[0]!.cnpj;
});
afterAll(async () => {
  await emu?.close();
});

function activePerson(index = 0): TruthCollaborator {
  const all = emu.truth.collaborators(hqCnpj);
  return all.filter(
    (c) => c.listed && all.filter((o) => o.national_registry === c.national_registry).length === 1,
  )[index]!;
}

describe('admin surface', () => {
  it('lists the companies with their tokens', async () => {
    const { body } =
      await admin<{ cnpj: string; name: string; token: string; is_headquarter: boolean }[]>('companies');
    expect(body).toEqual(
      emu.companies.map((c) => ({
        cnpj: c.cnpj,
        name: c.name,
        token: c.token,
        is_headquarter: c.isHeadquarter,
      })),
    );
  });

  it('deletes a punch: it leaves the day, the worked time and the audit photo endpoint', async () => {
    const cpf = activePerson(0).national_registry;
    const before = await daysOf(cpf, '2025-02-03', '2025-02-07');
    const day = before.find((d) => d.points.length === 4)!;
    const victim = day.points[3]!;
    expect((await admin('mutations/delete-punch', { point_id: victim.point_id })).status).toBe(200);
    const after = (await daysOf(cpf, '2025-02-03', '2025-02-07')).find((d) => d.date === day.date)!;
    expect(after.points.map((p) => p.point_id)).toEqual(day.points.slice(0, 3).map((p) => p.point_id));
    expect(durationToSeconds(after.worked_time as string)).toBeLessThan(
      durationToSeconds(day.worked_time as string),
    );
    expect(emu.truth.pointIds(hqCnpj, day.date, day.date)).not.toContain(victim.point_id);
    const audit = await api<{ error: { code: string } }>(`point/audit?point_id=${victim.point_id}`);
    expect([audit.status, audit.body.error.code]).toEqual([404, 'point_not_found']);
    expect((await admin('mutations/delete-punch', { point_id: victim.point_id })).status).toBe(404);
  });

  it('moves a punch within its day, marks it adjusted and adds an approved request', async () => {
    let cpf = '';
    let day: CollaboratorPoints['days'][number] | undefined;
    for (let i = 1; !day; i++) {
      cpf = activePerson(i).national_registry;
      day = (await daysOf(cpf, '2025-02-10', '2025-02-14')).find(
        (d) => d.points.length === 4 && d.points.every((p) => !p.is_adjusted),
      );
    }
    const first = day.points[0]!;
    const date = day.date;
    const res = await admin('mutations/adjust-punch', {
      point_id: first.point_id,
      datetime: `${date} 06:30:00`,
      reason: 'Chegou mais cedo para inventário',
      adjusted_by: 'Gestora Teste',
    });
    expect(res.status).toBe(200);
    const moved = (await daysOf(cpf, date, date))[0]!.points[0]!;
    expect(moved).toMatchObject({
      point_id: first.point_id,
      datetime: `${date} 06:30:00`,
      is_adjusted: true,
      adjustment_reason: 'Chegou mais cedo para inventário',
      adjusted_by: 'Gestora Teste',
    });
    const { body } = await api<{ data: CollaboratorAdjustments[] }>(
      `adjustment?begin_date=${date}&end_date=${date}&national_registry=${cpf}`,
    );
    expect(body.data[0]!.adjustments).toContainEqual(
      expect.objectContaining({
        status: 'Aprovado',
        type: 'Alteração de ponto',
        approved_by: 'Gestora Teste',
      }),
    );
    const wrongDay = await admin('mutations/adjust-punch', {
      point_id: first.point_id,
      datetime: '2025-01-01 08:00:00',
    });
    expect(wrongDay.status).toBe(422);
  });

  it('changes collaborator attributes that every later read shows', async () => {
    const cpf = activePerson(2).national_registry;
    const res = await admin('mutations/update-collaborator', {
      cnpj: hqCnpj,
      cpf,
      department: 'Auditoria Interna',
      team: null,
    });
    expect(res.status).toBe(200);
    const { body } = await api<{ data: CollaboratorBlock[] }>('collaborator');
    expect(body.data.find((c) => c.national_registry === cpf)).toMatchObject({
      department: 'Auditoria Interna',
      team: null,
    });
    const totals = await api<{ data: CollaboratorTotalHours[] }>(
      `collaborator/totalHours?begin_date=2024-01-01&end_date=2024-01-31&national_registry_list[]=${cpf}`,
    );
    expect(totals.body.data.every((c) => c.department === 'Auditoria Interna')).toBe(true);
    expect((await admin('mutations/update-collaborator', { cnpj: hqCnpj, cpf, department: 5 })).status).toBe(
      422,
    );
    expect(
      (await admin('mutations/update-collaborator', { cnpj: hqCnpj, cpf: '00000000191', name: 'x' })).status,
    ).toBe(404);
  });

  it('dismisses a collaborator: gone from the list, no days after the date, punches answer collaborator_fired', async () => {
    const person = activePerson(3);
    expect(
      (await admin('mutations/dismiss', { cnpj: hqCnpj, cpf: person.national_registry, date: '2025-03-05' }))
        .status,
    ).toBe(200);
    const list = await api<{ data: CollaboratorBlock[] }>('collaborator');
    expect(list.body.data.some((c) => c.national_registry === person.national_registry)).toBe(false);
    const days = await daysOf(person.national_registry, '2025-03-01', '2025-03-14');
    expect(days[days.length - 1]!.date).toBe('2025-03-05');
    const punch = await api<{ error: { code: string } }>('point', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ national_registry: person.national_registry, datetime: '2025-03-10 08:00:00' }),
    });
    expect([punch.status, punch.body.error.code]).toEqual([422, 'collaborator_fired']);
    const truth = emu.truth
      .collaborators(hqCnpj)
      .find((c) => c.national_registry === person.national_registry)!;
    expect(truth).toMatchObject({ listed: false, dismissed: true, dismissalDate: '2025-03-05' });
  });
});

describe('writes then reads', () => {
  it('ignores scope parameters on writes: they act on the token company (spec 1.4 rule 2)', async () => {
    const branch = emu.companies[1]!.cnpj;
    const { status, body } = await api<{ data: { id: number } }>(
      `department?company_national_registry=${branch}&include_branches=1`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ description: 'Jurídico' }),
      },
    );
    expect(status).toBe(201);
    expect(emu.truth.lookups(hqCnpj).departments).toContain(body.data.id);
    expect(emu.truth.lookups(branch).departments).not.toContain(body.data.id);
  });

  it('a full-day absence created through the API clears the punches of its days and counts as justified', async () => {
    const cpf = activePerson(4).national_registry;
    const before = await daysOf(cpf, '2025-02-17', '2025-02-21');
    expect(before.some((d) => d.points.length > 0)).toBe(true);
    const form = new FormData();
    form.append('national_registry[]', cpf);
    for (const [k, v] of Object.entries({
      absence_type_id: '2',
      description: 'Atestado',
      details: 'Repouso',
      begin_date: '2025-02-17',
      end_date: '2025-02-21',
      paid: '1',
      full_day: '1',
      sum_on_work_time: '1',
      sum_total_on_work_time: '1',
    })) {
      form.append(k, v);
    }
    const res = await api<{ data: { absence_id: number } }>('absence', { method: 'POST', body: form });
    expect(res.status).toBe(201);
    const after = await daysOf(cpf, '2025-02-17', '2025-02-21');
    expect(after.every((d) => d.points.length === 0)).toBe(true);
    const totals = await api<{ data: CollaboratorTotalHours[] }>(
      `collaborator/totalHours?begin_date=2025-02-17&end_date=2025-02-21&national_registry_list[]=${cpf}`,
    );
    const t = totals.body.data[totals.body.data.length - 1]!.total_hours;
    expect(durationToSeconds(t.justified_time as string)).toBeGreaterThan(0);
    expect(durationToSeconds(t.fault_full_time as string)).toBe(0);
    expect(emu.truth.absenceIds(hqCnpj, '2025-02-17', '2025-02-17')).toContain(res.body.data.absence_id);
  });

  it('rejects a multipart list field without [] and a JSON absence body', async () => {
    const form = new FormData();
    form.append('national_registry', activePerson(0).national_registry);
    const a = await api<{ error: { code: string } }>('absence', { method: 'POST', body: form });
    expect([a.status, a.body.error.code]).toEqual([422, 'invalid_list_parameter']);
    const b = await api<{ error: { code: string } }>('absence', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'x' }),
    });
    expect(b.status).toBe(400);
  });

  it('a collaborator created through the API receives punches, and its CPF can be reused after a dismissal', async () => {
    const l = emu.truth.lookups(hqCnpj);
    const body = {
      name: 'Rafaela Nunes Costa',
      national_registry: '11144477735',
      email: 'rafaela@example.com',
      birth_date: '1995-02-01',
      begin_date: '2025-03-03',
      journey_id: l.journeys[0],
      cost_center_id: l.cost_centers[0],
      department_id: l.departments[0],
      unit_id: l.units[0],
      collaborator_settings_id: l.collaborator_settings[0],
      point_rule_id: l.point_rules[0],
    };
    const post = (path: string, b: unknown, method = 'POST') =>
      api<{ data: Record<string, unknown>; error?: { code: string } }>(path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(b),
      });
    const created = await post('collaborator', body);
    expect(created.status).toBe(201);
    expect((await post('collaborator', body)).body.error?.code).toBe('collaborator_already_exists');
    const punch = await post('point', {
      national_registry: body.national_registry,
      datetime: '2025-03-12 08:01:00',
    });
    expect(punch.status).toBe(201);
    const days = await daysOf(body.national_registry, '2025-03-03', '2025-03-14');
    expect(days[0]!.date).toBe('2025-03-03');
    expect(days.flatMap((d) => d.points).map((p) => p.origin)).toEqual(['API']);
    const fired = emu.truth.lookups(hqCnpj).dismissal_types[0];
    expect(
      (
        await post(
          'collaborator/dismissal',
          { collaborator_id: created.body.data.id, fired_type_id: fired, dismissal_date: '2025-03-13' },
          'PUT',
        )
      ).status,
    ).toBe(200);
    expect((await post('collaborator', { ...body, begin_date: '2025-03-14' })).status).toBe(201);
  });
});
