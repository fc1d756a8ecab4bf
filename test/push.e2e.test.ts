/**
 * `punchline push` end to end in-process, against the emulator over HTTP, a real
 * warehouse schema and Redis: for every kind a mixed file (good, repeated, existing,
 * invalid and refused rows) gives the right outcome per row; a plan sends no write; a
 * second `--apply` creates nothing; a run of any kind stopped half-way and run again
 * creates each entity once; a write whose connection drops is reported, not retried; and after a
 * worker runs the queued sync, the warehouse shows what was created.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, CallOptions, NewPoint } from '../src/api/client.js';
import { runPush } from '../src/push/engine.js';
import { encodePng, facePng, textPdf } from '../src/emulator/attachments.js';
import type { TruthCollaborator } from '../src/emulator/truth.js';
import { WRITE_KINDS, type PushKind } from '../src/push/kinds/index.js';
import { isPrepared, prepareRows } from '../src/push/prepare.js';
import { pushRows, type PushHooks, type PushRun } from '../src/push/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { startWorkers } from '../src/runtime/workers.js';
import { makeCpf } from '../src/util/national-registry.js';
import { startHarness, type Harness } from './sync-harness.js';

const TODAY = '2026-10-31';
const dir = mkdtempSync(join(tmpdir(), 'push-e2e-'));

let h: Harness;
let rt: SyncRuntime;
let api: ApiClient;
let hq: string;
let people: TruthCollaborator[];
/** Active collaborators of the headquarters with a unique CPF, admitted before 2026-09. */
let active: TruthCollaborator[];
/** A CPF whose only record in the headquarters is dismissed. */
let dismissed: TruthCollaborator;
/** A valid CPF no company of the emulator has. */
let unknownCpf: string;
const queuedJobs = new Set<string>();

function csv(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Writes (POST/PUT) the emulator has received so far. */
function writes(): number {
  return Object.entries(h.emulator.stats().requests)
    .filter(([k]) => k.startsWith('POST ') || k.startsWith('PUT '))
    .reduce((n, [, v]) => n + v, 0);
}

async function push(
  kind: PushKind,
  file: string,
  apply: boolean,
  hooks: PushHooks = {},
  runtime: SyncRuntime = rt,
): Promise<PushRun> {
  const rows = await prepareRows(WRITE_KINDS[kind], file, { maxFileBytes: 64 * 1024 });
  const run = await pushRows(
    runtime,
    { kind, file, apply, connection: runtime.config.connections[0]! },
    rows,
    { today: TODAY, ...hooks },
  );
  for (const id of [...(run.queued?.added ?? []), ...(run.queued?.pending ?? [])]) queuedJobs.add(id);
  return run;
}

/** `[line, outcome, code]` of every row. */
function outcomes(run: PushRun): [number, string, string | undefined][] {
  return run.result.rows.map((r) => [r.line, r.outcome, r.code]);
}

/** Runs the plan, the apply and a second apply of `file`; returns the three runs and the writes each sent. */
async function planApplyAgain(
  kind: PushKind,
  file: string,
): Promise<{ plan: PushRun; apply: PushRun; again: PushRun; sent: number[] }> {
  const w0 = writes();
  const plan = await push(kind, file, false);
  const w1 = writes();
  const apply = await push(kind, file, true);
  const w2 = writes();
  const again = await push(kind, file, true);
  const w3 = writes();
  return { plan, apply, again, sent: [w1 - w0, w2 - w1, w3 - w2] };
}

beforeAll(async () => {
  h = await startHarness('push', { today: TODAY, scale: 60 });
  rt = await h.runtime();
  api = rt.client('default').api;
  hq = h.emulator.companies[0]!.cnpj;
  people = h.emulator.truth.collaborators(hq);
  const count = (cpf: string) => people.filter((p) => p.national_registry === cpf).length;
  active = people.filter(
    (p) => p.listed && count(p.national_registry) === 1 && p.admission_date! < '2026-09-01',
  );
  dismissed = people.find(
    (p) => p.dismissed && count(p.national_registry) === 1 && p.dismissalDate! > '2025-12-01',
  )!;
  expect(active.length).toBeGreaterThan(10);
  expect(dismissed).toBeDefined();
  const everyCpf = new Set(
    h.emulator.companies.flatMap((c) =>
      h.emulator.truth.collaborators(c.cnpj).map((p) => p.national_registry),
    ),
  );
  unknownCpf = [makeCpf('987654321'), makeCpf('987654322'), makeCpf('987654323')].find(
    (c) => !everyCpf.has(c),
  )!;
}, 120_000);

afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('push punches', () => {
  it('creates good punches, skips repeats and existing ones, reports invalid and refused rows, and creates nothing the second time', async () => {
    const a = active[0]!;
    const existing = (
      await api.getPointsFromPeriod({
        beginDate: '2026-10-05',
        endDate: '2026-10-09',
        nationalRegistryList: [a.national_registry],
      })
    )[0]!.days.flatMap((d) => d.points)[0]!;
    const file = csv('punches.csv', [
      'national_registry;datetime',
      `${a.national_registry};2026-10-20 08:00:00`,
      `${a.national_registry};2026-10-20 08:00`, // the same punch, seconds omitted
      `${a.national_registry};2026-10-20 25:00:00`,
      `${unknownCpf};2026-10-20 08:00:00`,
      `${dismissed.national_registry};2026-06-01 08:00:00`,
      `${a.national_registry};2026-11-05 08:00:00`,
      `${a.national_registry.replace(/^0+/, '')};2026-09-15 07:59:30`, // leading zeros dropped by a spreadsheet
      `${a.national_registry};${existing.datetime}`,
    ]);
    const { plan, apply, again, sent } = await planApplyAgain('punches', file);
    expect(sent[0]).toBe(0);
    expect(outcomes(plan)).toEqual([
      [2, 'would_create', undefined],
      [3, 'skipped', 'duplicate_in_file'],
      [4, 'invalid', 'invalid_row'],
      [5, 'would_create', undefined],
      [6, 'would_create', undefined],
      [7, 'would_create', undefined],
      [8, 'would_create', undefined],
      [9, 'skipped', 'exists'],
    ]);
    expect(plan.result.rows[2]!.message).toMatch(/datetime: expected a local date-time/);
    expect(plan.result.rows[7]!.id).toBe(String(existing.point_id));

    expect(outcomes(apply)).toEqual([
      [2, 'created', undefined],
      [3, 'skipped', 'duplicate_in_file'],
      [4, 'invalid', 'invalid_row'],
      [5, 'refused', 'cpf_not_found'],
      [6, 'refused', 'collaborator_fired'],
      [7, 'refused', 'date_time_greater_than_now'],
      [8, 'created', undefined],
      [9, 'skipped', 'exists'],
    ]);
    expect(sent[1]).toBe(5);
    const created = apply.result.rows.filter((r) => r.outcome === 'created').map((r) => r.id);
    expect(created.every((id) => /^\d+$/.test(id!))).toBe(true);

    expect(again.result.counts.created).toBe(0);
    expect(
      outcomes(again)
        .filter(([, o]) => o === 'skipped')
        .map(([line]) => line),
    ).toEqual([2, 3, 8, 9]);
    expect(again.result.rows[0]!.id).toBe(created[0]);
    expect(sent[2]).toBe(3); // only the refused rows are sent again
    expect(apply.queued!.added.sort()).toEqual([
      `punches.default.${hq}.2026-09-01.2026-09-30`,
      `punches.default.${hq}.2026-10-01.2026-10-31`,
    ]);
  }, 60_000);

  it('a run stopped after some writes, run again, creates each punch once', async () => {
    const a = active[1]!;
    const times = Array.from({ length: 10 }, (_, i) => `2026-10-21 ${String(8 + i).padStart(2, '0')}:00:00`);
    const file = csv('punches-stop.csv', [
      'national_registry,datetime',
      ...times.map((t) => `${a.national_registry},${t}`),
    ]);
    const serial = await h.runtime({ API_MAX_CONCURRENCY: '1' });
    const controller = new AbortController();
    let created = 0;
    const first = await push(
      'punches',
      file,
      true,
      {
        signal: controller.signal,
        onWritten: (r) => {
          if (r.outcome === 'created' && ++created === 4) controller.abort(new Error('stop'));
        },
      },
      serial,
    );
    expect(first.result.interrupted).toBe(true);
    expect(first.result.counts.created).toBe(4);
    expect(first.result.counts.failed).toBe(6);
    expect(first.result.rows.filter((r) => r.outcome === 'failed').every((r) => r.code === 'not_sent')).toBe(
      true,
    );

    const second = await push('punches', file, true);
    expect(second.result.counts).toMatchObject({ created: 6, skipped: 4 });
    const points = (
      await api.getPointsFromPeriod({
        beginDate: '2026-10-21',
        endDate: '2026-10-21',
        nationalRegistryList: [a.national_registry],
      })
    ).flatMap((p) => p.days.flatMap((d) => d.points.map((x) => x.datetime)));
    for (const t of times)
      expect(
        points.filter((x) => x === t),
        t,
      ).toHaveLength(1);
  }, 60_000);
});

describe('push collaborators', () => {
  it('resolves names (warehouse first, then the API), skips existing CPFs, and reports invalid and refused rows', async () => {
    const [journeys, costCenters, departments, units, settings, rules, occupations] = await Promise.all([
      api.listJourneys(),
      api.listCostCenters(),
      api.listDepartments(),
      api.listUnits(),
      api.listCollaboratorSettings(),
      api.listPointRules(),
      api.listOccupations(),
    ]);
    // A department name only the warehouse knows: resolving it must not need the API's list.
    await h.pool.query(
      `insert into "${h.schema}".departments (company_cnpj, id, description, active) values ($1, $2, 'Depto do Armazém', true)`,
      [hq, departments[0]!.id],
    );
    const [n1, n2, n3, n4, n5] = ['111444777', '222555888', '333666999', '444777000', '555888111'].map(
      makeCpf,
    );
    const names = `"${journeys[0]!.description}","${costCenters[0]!.name}","${units[0]!.name}","${settings[0]!.description}","${rules[0]!.description}"`;
    const header =
      'name,national_registry,email,birth_date,begin_date,admission_date,journey,cost_center,unit,collaborator_settings,point_rule,department,department_id,occupation_id';
    const file = csv('collaborators.csv', [
      header,
      `Ana Nova,${n1},ana@example.com,1990-01-02,2026-10-01,2026-10-01,${names},Depto do Armazém,,${occupations[0]!.id}`,
      `Ana Nova,${n1},ana@example.com,1990-01-02,2026-10-01,2026-10-01,${names},Depto do Armazém,,`,
      `Já Existe,${active[2]!.national_registry},ja@example.com,1990-01-02,2026-10-01,,${names},,${departments[0]!.id},`,
      `Bruno Recusado,${n2},bruno@example.com,1990-01-02,2026-10-01,,${names},,999999,`,
      `Carla Email,${n3},not-an-email,1990-01-02,2026-10-01,,${names},,${departments[0]!.id},`,
      `Davi Jornada,${n4},davi@example.com,1990-01-02,2026-10-01,,"Jornada Que Não Existe","${costCenters[0]!.name}","${units[0]!.name}","${settings[0]!.description}","${rules[0]!.description}",,${departments[0]!.id},`,
      `Eva Nova,${n5},eva@example.com,1990-01-02,2026-10-01,,${names},,${departments[1]!.id},`,
    ]);
    h.emulator.resetStats();
    const { plan, apply, again, sent } = await planApplyAgain('collaborators', file);
    expect(h.emulator.stats().requests['GET /customer/v2/department']).toBeUndefined();
    expect(sent[0]).toBe(0);
    expect(outcomes(plan).map(([, o]) => o)).toEqual([
      'would_create',
      'skipped',
      'skipped',
      'would_create',
      'invalid',
      'invalid',
      'would_create',
    ]);
    expect(plan.result.rows[4]!.message).toMatch(/email: expected an e-mail address/);
    expect(plan.result.rows[5]!.message).toMatch(
      /journey: no journey with description "Jornada Que Não Existe" in company/,
    );
    expect(outcomes(apply)).toEqual([
      [2, 'created', undefined],
      [3, 'skipped', 'duplicate_in_file'],
      [4, 'skipped', 'exists'],
      [5, 'refused', 'department_not_found'],
      [6, 'invalid', 'invalid_row'],
      [7, 'invalid', 'invalid_row'],
      [8, 'created', undefined],
    ]);
    expect(sent[1]).toBe(3);
    const listed = h.emulator.truth.collaborators(hq).filter((p) => p.listed);
    expect(listed.filter((p) => p.national_registry === n1)).toHaveLength(1);
    expect(listed.find((p) => p.national_registry === n1)!.department).toBe(departments[0]!.description);
    expect(again.result.counts.created).toBe(0);
    expect(
      outcomes(again)
        .filter(([, o]) => o === 'skipped')
        .map(([line]) => line),
    ).toEqual([2, 3, 4, 8]);
    expect(sent[2]).toBe(1);
  }, 60_000);
});

describe('push dismissals', () => {
  it('dismisses active collaborators once, skips those already dismissed, and reports invalid and refused rows', async () => {
    const [b, c, e] = [active[3]!, active[4]!, active[5]!];
    const types = await api.listFiredTypes();
    const file = csv('dismissals.jsonl', [
      JSON.stringify({
        national_registry: b.national_registry,
        dismissal_date: '2026-10-30',
        fired_type: types[0]!.name,
        fired_description: 'fim de contrato',
      }),
      JSON.stringify({
        registration_number: b.registration_number,
        dismissal_date: '2026-10-30',
        fired_type_id: types[0]!.id,
      }),
      JSON.stringify({
        national_registry: c.national_registry,
        dismissal_date: '2026-10-30',
        fired_type_id: 999999,
      }),
      JSON.stringify({
        national_registry: e.national_registry,
        dismissal_date: '2000-01-01',
        fired_type_id: types[0]!.id,
      }),
      JSON.stringify({ collaborator_id: 42, dismissal_date: '2026-10-30', fired_type_id: types[0]!.id }),
      JSON.stringify({
        national_registry: unknownCpf,
        dismissal_date: '2026-10-30',
        fired_type_id: types[0]!.id,
      }),
      JSON.stringify({
        national_registry: dismissed.national_registry,
        dismissal_date: dismissed.dismissalDate,
        fired_type_id: types[0]!.id,
      }),
    ]);
    const { plan, apply, again, sent } = await planApplyAgain('dismissals', file);
    expect(sent[0]).toBe(0);
    expect(outcomes(plan).map(([, o]) => o)).toEqual([
      'would_create',
      'skipped',
      'would_create',
      'would_create',
      'invalid',
      'would_create',
      'skipped',
    ]);
    expect(plan.result.rows[4]!.message).toMatch(/give national_registry or registration_number/);
    expect(plan.result.rows[6]!.message).toMatch(
      /not in the active list .* period data shows it: already dismissed/,
    );
    expect(outcomes(apply)).toEqual([
      [1, 'created', undefined],
      [2, 'skipped', 'exists'],
      [3, 'refused', 'fired_type_not_found'],
      [4, 'refused', 'dismissal_date_before_admission_date'],
      [5, 'invalid', 'invalid_row'],
      [6, 'refused', 'collaborator_not_found'],
      [7, 'skipped', 'exists'],
    ]);
    expect(sent[1]).toBe(4);
    const bNow = h.emulator.truth.collaborators(hq).find((p) => p.national_registry === b.national_registry)!;
    expect(bNow).toMatchObject({ dismissed: true, dismissalDate: '2026-10-30' });
    // No read shows the date: the warehouse keeps the one sent, for employments.left_on.
    const recorded = await h.pool.query(
      `select cpf, registration_number, dismissal_date::text from "${h.schema}".pushed_dismissals where company_cnpj = $1`,
      [hq],
    );
    expect(recorded.rows).toEqual([
      { cpf: b.national_registry, registration_number: null, dismissal_date: '2026-10-30' },
    ]);
    expect(again.result.counts.created).toBe(0);
    expect(
      outcomes(again)
        .filter(([, o]) => o === 'skipped')
        .map(([line]) => line),
    ).toEqual([1, 2, 7]);
    expect(sent[2]).toBe(3);
  }, 60_000);
});

describe('push photos', () => {
  it('sends each image once per CPF, checks files before sending, and reports the API’s refusals', async () => {
    const [a, a2] = [active[6]!, active[7]!];
    writeFileSync(join(dir, 'face.png'), facePng(3));
    writeFileSync(join(dir, 'tiny.png'), encodePng(8, 8, new Uint8Array(8 * 8 * 3).fill(200)));
    const file = csv('photos.csv', [
      'national_registry,photo,photo_base64',
      `${a.national_registry},face.png,`,
      `${a.national_registry},face.png,`,
      `${a.national_registry},missing.png,`,
      `${unknownCpf},face.png,`,
      `${dismissed.national_registry},face.png,`,
      `${a2.national_registry},tiny.png,`,
      `${a2.national_registry},,${facePng(5).toString('base64')}`,
    ]);
    const { plan, apply, again, sent } = await planApplyAgain('photos', file);
    expect(sent[0]).toBe(0);
    expect(outcomes(plan).map(([, o]) => o)).toEqual([
      'would_create',
      'skipped',
      'invalid',
      'would_create',
      'would_create',
      'would_create',
      'would_create',
    ]);
    expect(outcomes(apply)).toEqual([
      [2, 'created', undefined],
      [3, 'skipped', 'duplicate_in_file'],
      [4, 'invalid', 'invalid_row'],
      [5, 'refused', 'cpf_not_found'],
      [6, 'refused', 'collaborator_fired'],
      [7, 'refused', 'invalid_photo'],
      [8, 'created', undefined],
    ]);
    expect(sent[1]).toBe(5);
    expect(again.result.counts.created).toBe(0);
    expect(
      outcomes(again)
        .filter(([, o]) => o === 'skipped')
        .map(([line]) => line),
    ).toEqual([2, 3, 8]);
    expect(again.result.rows[0]!.message).toMatch(
      /the same image was sent for CPF .* \(.*photos.csv line 2\)/,
    );
    expect(sent[2]).toBe(3);
    expect(apply.queued).toBeUndefined(); // no read shows face photos: nothing to sync
  }, 60_000);
});

describe('push absences', () => {
  it('creates each absence once per CPF, sends attachments, narrows a row to the CPFs that lack it', async () => {
    const [a, a2, a3] = [active[8]!, active[9]!, active[10]!];
    const type = (await api.listAbsenceTypes())[0]!;
    writeFileSync(join(dir, 'atestado.pdf'), textPdf(['Atestado medico']));
    const span = '2026-10-12,2026-10-14,1,1,0,0';
    const file = csv('absences.csv', [
      'national_registry,absence_type,description,details,begin_date,end_date,paid,full_day,sum_on_work_time,sum_total_on_work_time,attachment',
      `${a.national_registry}|${a2.national_registry},"${type.description}",Atestado,Consulta,${span},atestado.pdf`,
      `${a2.national_registry}|${a.national_registry},"${type.description}",Atestado,Consulta,${span},atestado.pdf`,
      `${a.national_registry},"${type.description}",Atestado,Consulta,${span},`,
      `${a2.national_registry}|${a3.national_registry},"${type.description}",Atestado,Consulta,${span},`,
      `${a.national_registry},"Tipo Que Não Existe",Atestado,Consulta,${span},`,
      `${a.national_registry},"${type.description}",Atestado,Consulta,2026-10-14,2026-10-12,1,1,0,0,`,
      `${a.national_registry},"${type.description}",Atestado,Consulta,${span},sumiu.pdf`,
    ]);
    // An id the API does not know is sent and refused (a name it does not know is invalid before sending).
    const refusedFile = csv('absences-refused.jsonl', [
      JSON.stringify({
        national_registry: [a.national_registry],
        absence_type_id: 999999,
        description: 'x',
        details: 'y',
        begin_date: '2026-10-20',
        end_date: '2026-10-20',
        paid: 1,
        full_day: 1,
        sum_on_work_time: 0,
        sum_total_on_work_time: 0,
      }),
    ]);
    const { plan, apply, again, sent } = await planApplyAgain('absences', file);
    expect(sent[0]).toBe(0);
    expect(outcomes(plan).map(([, o]) => o)).toEqual([
      'would_create',
      'skipped',
      'skipped',
      'would_create',
      'invalid',
      'invalid',
      'invalid',
    ]);
    expect(plan.result.rows[3]!.message).toMatch(
      new RegExp(`sent for ${a3.national_registry} only: ${a2.national_registry} already has it`),
    );
    expect(plan.result.rows[6]!.message).toMatch(/attachment: sumiu.pdf does not exist/);
    expect(outcomes(apply).map(([, o]) => o)).toEqual([
      'created',
      'skipped',
      'skipped',
      'created',
      'invalid',
      'invalid',
      'invalid',
    ]);
    expect(sent[1]).toBe(2);
    expect(again.result.counts.created).toBe(0);
    expect(sent[2]).toBe(0);
    const absenceId = Number(apply.result.rows[0]!.id);
    const attachments = await api.getAbsenceAttachments(absenceId);
    expect(attachments.map((f) => [f.filename, f.mime_type])).toEqual([['atestado.pdf', 'application/pdf']]);
    const found = (
      await api.getAbsencesFromPeriod({ beginDate: '2026-10-12 00:00:00', endDate: '2026-10-14 23:59:59' })
    ).filter(
      (x) =>
        x.absence_type_id === type.id &&
        x.begin_date.startsWith('2026-10-12') &&
        x.end_date.startsWith('2026-10-14'),
    );
    for (const cpf of [a, a2, a3].map((p) => p.national_registry)) {
      expect(
        found.filter((x) => x.collaborators.some((c) => c.national_registry === cpf)),
        cpf,
      ).toHaveLength(1);
    }
    const refused = await push('absences', refusedFile, true);
    expect(outcomes(refused)).toEqual([[1, 'refused', 'absence_type_not_found']]);
  }, 60_000);

  it('reads attachments only inside the files folder: absolute paths, ~, ../ and links that lead out are invalid rows and never sent', async () => {
    const a = active[8]!;
    const type = (await api.listAbsenceTypes())[0]!;
    // The input sits two folders down; a "secret" two folders up, and a link to it beside the input.
    const rows = join(dir, 'outside', 'in', 'rows');
    mkdirSync(rows, { recursive: true });
    const secret = join(dir, 'outside', 'secrets');
    writeFileSync(secret, 'API_TOKEN=do-not-upload-me\n');
    symlinkSync(secret, join(rows, 'cert.pdf'));
    symlinkSync('/etc', join(rows, 'etc'));
    writeFileSync(join(rows, 'ok.pdf'), textPdf(['Atestado']));
    const line = (day: string, attachment: string) =>
      `${a.national_registry},"${type.description}",Atestado,Consulta,2026-10-${day},2026-10-${day},1,1,0,0,${attachment}`;
    const file = join(rows, 'absences.csv');
    writeFileSync(
      file,
      [
        'national_registry,absence_type,description,details,begin_date,end_date,paid,full_day,sum_on_work_time,sum_total_on_work_time,attachment',
        line('01', '/etc/passwd'),
        line('02', '~/.ssh/id_rsa'),
        line('03', '../../secrets'),
        line('05', 'cert.pdf'),
        line('06', 'etc/passwd'),
        line('07', 'ok.pdf|../../secrets'),
        line('08', 'ok.pdf'),
      ].join('\n'),
    );
    const w0 = writes();
    const run = await push('absences', file, true);
    expect(outcomes(run)).toEqual([
      [2, 'invalid', 'invalid_row'],
      [3, 'invalid', 'invalid_row'],
      [4, 'invalid', 'invalid_row'],
      [5, 'invalid', 'invalid_row'],
      [6, 'invalid', 'invalid_row'],
      [7, 'invalid', 'invalid_row'],
      [8, 'created', undefined],
    ]);
    expect(run.result.rows.map((r) => r.message).slice(0, 6)).toEqual([
      expect.stringMatching(
        /^attachment: \/etc\/passwd is an absolute path \(file columns name files inside the input file's folder, or inside --files-dir\)$/,
      ),
      expect.stringMatching(/^attachment: ~\/.ssh\/id_rsa starts with ~, which is not expanded/),
      expect.stringMatching(/^attachment: \.\.\/\.\.\/secrets is outside the files folder/),
      expect.stringMatching(/^attachment: cert\.pdf is a link to a file outside the files folder/),
      expect.stringMatching(/^attachment: etc\/passwd is a link to a file outside the files folder/),
      expect.stringMatching(/^attachment: \.\.\/\.\.\/secrets is outside the files folder/),
    ]);
    expect(writes() - w0).toBe(1);
    const sent = await api.getAbsenceAttachments(Number(run.result.rows[6]!.id));
    expect(sent.map((f) => f.filename)).toEqual(['ok.pdf']);

    // --files-dir moves the folder: the same row reads its file there, and only there.
    const shared = join(dir, 'outside', 'shared');
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, 'laudo.pdf'), textPdf(['Laudo']));
    const elsewhere = join(rows, 'elsewhere.csv');
    writeFileSync(
      elsewhere,
      [readFileSync(file, 'utf8').split('\n')[0], line('09', 'laudo.pdf'), line('12', 'ok.pdf')].join('\n'),
    );
    const moved = await prepareRows(WRITE_KINDS.absences, elsewhere, {
      maxFileBytes: 64 * 1024,
      filesDir: shared,
    });
    expect(moved.map((r) => (isPrepared(r) ? 'prepared' : r.message))).toEqual([
      'prepared',
      expect.stringMatching(/^attachment: ok\.pdf does not exist/),
    ]);
  }, 60_000);
});

describe.each([
  ['departments', 'description', async () => (await api.listDepartments()).map((d) => d.description)],
  ['occupations', 'description', async () => (await api.listOccupations()).map((d) => d.description)],
  ['fired-types', 'name', async () => (await api.listFiredTypes()).map((d) => d.name)],
  ['cost-centers', 'name', async () => (await api.listCostCenters()).map((d) => d.name)],
] as const)('push %s', (kind, field, listed) => {
  it('creates new names once, skips names the API lists (ignoring case and blanks) and repeats, and reports blank rows invalid', async () => {
    const before = await listed();
    const file = csv(`${kind}.csv`, [
      field,
      `Push ${kind} Alfa`,
      `"  push ${kind.toUpperCase()}   alfa "`,
      `"${before[0]!.toUpperCase()}"`,
      '" "',
      `Push ${kind} Beta`,
    ]);
    const { plan, apply, again, sent } = await planApplyAgain(kind, file);
    expect(sent).toEqual([0, 2, 0]);
    expect(outcomes(plan).map(([, o]) => o)).toEqual([
      'would_create',
      'skipped',
      'skipped',
      'invalid',
      'would_create',
    ]);
    expect(outcomes(apply).map(([, o]) => o)).toEqual([
      'created',
      'skipped',
      'skipped',
      'invalid',
      'created',
    ]);
    expect(again.result.counts.created).toBe(0);
    const after = await listed();
    expect(after.filter((x) => x === `Push ${kind} Alfa`)).toHaveLength(1);
    expect(after.length).toBe(before.length + 2);
    // queued by this push, or still waiting from the previous kind's push (not queued twice)
    expect([...apply.queued!.added, ...apply.queued!.pending]).toEqual([`lookups.default.${hq}`]);
  }, 60_000);
});

describe('a run of any kind stopped after some writes, then run again', () => {
  /** The write endpoint of each kind, as the emulator counts it. */
  const WRITES: Record<Exclude<PushKind, 'punches'>, string> = {
    departments: 'POST /customer/v2/department',
    occupations: 'POST /customer/v2/occupation',
    'fired-types': 'POST /customer/v2/fired-type',
    'cost-centers': 'POST /customer/v2/cost-center',
    collaborators: 'POST /customer/v2/collaborator',
    photos: 'POST /customer/v2/collaborator/photo',
    dismissals: 'PUT /customer/v2/collaborator/dismissal',
    absences: 'POST /customer/v2/absence',
  };
  /** A file of four rows of `kind`, each a different entity the API does not have yet. */
  const FILES: Record<keyof typeof WRITES, () => Promise<string[]>> = {
    departments: async () => ['description', ...[1, 2, 3, 4].map((i) => `Halfway Department ${i}`)],
    occupations: async () => ['description', ...[1, 2, 3, 4].map((i) => `Halfway Occupation ${i}`)],
    'fired-types': async () => ['name', ...[1, 2, 3, 4].map((i) => `Halfway Fired Type ${i}`)],
    'cost-centers': async () => ['name', ...[1, 2, 3, 4].map((i) => `Halfway Cost Center ${i}`)],
    collaborators: async () => {
      const [j, cc, d, u, cs, pr] = await Promise.all([
        api.listJourneys(),
        api.listCostCenters(),
        api.listDepartments(),
        api.listUnits(),
        api.listCollaboratorSettings(),
        api.listPointRules(),
      ]);
      const ids = [j, cc, d, u, cs, pr].map((list) => list[0]!.id).join(',');
      return [
        'name,national_registry,email,birth_date,begin_date,journey_id,cost_center_id,department_id,unit_id,collaborator_settings_id,point_rule_id',
        ...['610', '620', '630', '640'].map(
          (n, i) => `Meio ${i},${makeCpf(`${n}444555`)},meio${i}@example.com,1991-02-03,2026-10-01,${ids}`,
        ),
      ];
    },
    photos: async () => {
      writeFileSync(join(dir, 'halfway.png'), facePng(7));
      return [
        'national_registry,photo',
        ...active.slice(11, 15).map((p) => `${p.national_registry},halfway.png`),
      ];
    },
    dismissals: async () => {
      const type = (await api.listFiredTypes())[0]!;
      return [
        'national_registry,dismissal_date,fired_type_id',
        ...active.slice(15, 19).map((p) => `${p.national_registry},2026-10-29,${type.id}`),
      ];
    },
    absences: async () => {
      const type = (await api.listAbsenceTypes())[0]!;
      return [
        'national_registry,absence_type_id,description,details,begin_date,end_date,paid,full_day,sum_on_work_time,sum_total_on_work_time',
        ...active
          .slice(19, 23)
          .map((p) => `${p.national_registry},${type.id},Folga,Meio,2026-10-05,2026-10-06,1,1,0,0`),
      ];
    },
  };

  it.each(Object.keys(WRITES) as (keyof typeof WRITES)[])(
    '%s: creates each entity once',
    async (kind) => {
      const file = csv(`halfway-${kind}.csv`, await FILES[kind]());
      const sent = () => h.emulator.stats().requests[WRITES[kind]] ?? 0;
      const before = sent();
      const serial = await h.runtime({ API_MAX_CONCURRENCY: '1' });
      const controller = new AbortController();
      let created = 0;
      const first = await push(
        kind,
        file,
        true,
        {
          signal: controller.signal,
          onWritten: (r) => {
            if (r.outcome === 'created' && ++created === 2) controller.abort(new Error('stop'));
          },
        },
        serial,
      );
      expect(first.result.interrupted).toBe(true);
      expect(first.result.counts).toMatchObject({ created: 2, failed: 2 });

      const second = await push(kind, file, true);
      expect(second.result.counts).toMatchObject({
        created: 2,
        skipped: 2,
        failed: 0,
        refused: 0,
        invalid: 0,
      });
      // Four entities, four writes in all: none was sent twice.
      expect(sent() - before).toBe(4);
      expect((await push(kind, file, true)).result.counts).toMatchObject({ created: 0, skipped: 4 });
      expect(sent() - before).toBe(4);
    },
    60_000,
  );
});

describe('when the connection drops during a write', () => {
  it('reports the row failed, does not retry it, and a rerun creates it', async () => {
    const serial = await h.runtime({ API_MAX_CONCURRENCY: '1' });
    const file = csv('drop.csv', ['description', 'Depto Antes da Queda', 'Depto Durante a Queda']);
    const posts = () => h.emulator.stats().requests['POST /customer/v2/department'] ?? 0;
    const p0 = posts();
    const first = await push(
      'departments',
      file,
      true,
      {
        onWritten: (r) => {
          if (r.outcome === 'created') h.emulator.setFaults({ drop: 1 });
        },
      },
      serial,
    );
    h.emulator.setFaults({ drop: 0 });
    expect(outcomes(first)).toEqual([
      [2, 'created', undefined],
      [3, 'failed', 'network'],
    ]);
    expect(first.result.rows[1]!.message).toMatch(/may have taken effect: run the same file again/);
    expect(posts() - p0).toBe(2);
    const second = await push('departments', file, true);
    expect(outcomes(second)).toEqual([
      [2, 'skipped', 'exists'],
      [3, 'created', undefined],
    ]);
  }, 60_000);
});

describe('a claim an earlier run left without an outcome', () => {
  it('is resolved by reading the API: a punch that run had written is not written again, one it had not is', async () => {
    const a = active[12]!;
    const [t1, t2, t3] = ['2026-10-28 08:00:00', '2026-10-28 12:00:00', '2026-10-28 17:00:00'];
    const file = csv('orphan-claims.csv', [
      'national_registry,datetime',
      ...[t1, t2, t3].map((t) => `${a.national_registry},${t}`),
    ]);
    const real = rt.client('default').api;
    const claimed = (datetime: string) =>
      h.pool.query(
        `insert into "${h.schema}".push_receipts (company_cnpj, kind, row_key, state, claim_run, claimed_at, connection, source_file, source_line)
         values ($1, 'punches', $2, 'claimed', $3, now(), 'default', 'earlier.csv', 7)`,
        [hq, `${a.national_registry}|${datetime}`, '-4242424242'],
      );
    // While this run writes its first punch, an earlier run that then died claimed the other two
    // (no live session holds the lock of its number) and got the second one to the API.
    const api = new Proxy(real, {
      get(target, prop) {
        if (prop === 'registerPoint') {
          return async (body: NewPoint, call?: CallOptions) => {
            if (body.datetime === t1) {
              await claimed(t2);
              await claimed(t3);
              await real.registerPoint({ national_registry: a.national_registry, datetime: t2 });
            }
            return real.registerPoint(body, call);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const rows = await prepareRows(WRITE_KINDS.punches, file, { maxFileBytes: 1024 });
    const deps = {
      api,
      db: rt.warehouse.pool,
      schema: h.schema,
      company: hq,
      connection: 'default',
      today: TODAY,
    };
    const run = await runPush(deps, WRITE_KINDS.punches, rows, { file, apply: true, concurrency: 1 });
    expect(run.rows.map((r) => [r.line, r.outcome, r.code])).toEqual([
      [2, 'created', undefined],
      [3, 'skipped', 'exists'],
      [4, 'created', undefined],
    ]);
    expect(run.rows[1]!.message).toMatch(
      /^the API already has this punch \(point_id \d+\) \(an earlier push that was stopped or got no answer had sent it\)$/,
    );
    const points = (
      await api.getPointsFromPeriod({
        beginDate: '2026-10-28',
        endDate: '2026-10-28',
        nationalRegistryList: [a.national_registry],
      })
    ).flatMap((p) => p.days.flatMap((d) => d.points.map((x) => x.datetime)));
    for (const t of [t1, t2, t3])
      expect(
        points.filter((x) => x === t),
        t,
      ).toHaveLength(1);
    const receipts = await h.pool.query(
      `select row_key, state, claim_run from "${h.schema}".push_receipts where row_key like $1 order by row_key`,
      [`${a.national_registry}|2026-10-28 %`],
    );
    expect(receipts.rows.map((r) => [r.state, r.claim_run])).toEqual([
      ['created', null],
      ['created', null],
      ['created', null],
    ]);
  }, 60_000);
});

describe('after push --apply and a worker run', () => {
  it('the warehouse has the new rows', async () => {
    const pool = startWorkers(rt, { concurrency: 2, queues: ['sync', 'followups', 'marts'] });
    try {
      const until = Date.now() + 90_000;
      for (;;) {
        const states = await Promise.all(
          [...queuedJobs].map(async (id) => (await rt.queues.sync.getJob(id))?.getState() ?? 'missing'),
        );
        // The marts (employments.left_on) are current once the follow-ups took in every load.
        const pending = await h.pool.query(`select 1 from "${h.schema}".pending_changes limit 1`);
        if (
          pending.rowCount === 0 &&
          states.every((s) => s === 'completed' || s === 'failed' || s === 'missing')
        ) {
          expect(states.filter((s) => s !== 'completed')).toEqual([]);
          break;
        }
        if (Date.now() > until) throw new Error(`sync jobs still pending: ${states.join(', ')}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    } finally {
      await pool.close();
    }
    const q = async (sql: string, values: unknown[]) => (await h.pool.query(sql, values)).rows;
    const s = (t: string) => `"${h.schema}"."${t}"`;
    const a = active[0]!;
    expect(
      await q(
        `select point_id from ${s('punches')} where company_cnpj = $1 and cpf = $2 and punched_at_local = '2026-10-20 08:00:00' and origin = 'API'`,
        [hq, a.national_registry],
      ),
    ).toHaveLength(1);
    expect(
      await q(`select cpf from ${s('collaborators')} where company_cnpj = $1 and cpf = $2 and active`, [
        hq,
        makeCpf('111444777'),
      ]),
    ).toHaveLength(1);
    expect(
      await q(`select cpf from ${s('collaborators')} where company_cnpj = $1 and cpf = $2 and not active`, [
        hq,
        active[3]!.national_registry,
      ]),
    ).toHaveLength(1);
    // The employment ends on the date punchline sent, not on a day inferred from the data.
    expect(
      await q(
        `select left_on::text, left_on_source from ${s('employments')} where company_cnpj = $1 and cpf = $2`,
        [hq, active[3]!.national_registry],
      ),
    ).toEqual([{ left_on: '2026-10-30', left_on_source: 'dismissal' }]);
    expect(
      await q(
        `select id from ${s('departments')} where company_cnpj = $1 and description = 'Push departments Alfa' and active`,
        [hq],
      ),
    ).toHaveLength(1);
    expect(
      await q(
        `select absence_id from ${s('absences')} where company_cnpj = $1 and begins_at_local::date = '2026-10-12' and ends_at_local::date = '2026-10-14'`,
        [hq],
      ),
    ).not.toHaveLength(0);
  }, 120_000);
});
