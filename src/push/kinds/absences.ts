/**
 * spec 4.2 `POST absence` (multipart): one absence per row for one or more CPFs, with
 * optional attachments read from files next to the input. An absence exists for a
 * CPF when `absence/getFromPeriod` shows one of the same type, first day and last day
 * that includes that CPF. A row whose CPFs all have it is skipped; a row where only
 * some have it is sent for the others only, so nobody gets the absence twice. Rows of
 * the same file count as existing for the rows after them.
 */
import type { Attachment, NewAbsence } from '../../api/client.js';
import type { Absence } from '../../api/schemas.js';
import { dateTimeBounds, monthWindows, MAX_WINDOW_DAYS, type DateWindow } from '../../plan/windows.js';
import { addDays } from '../../util/time.js';
import { readPrepared, type PreparedFile } from '../files.js';
import { RowInvalid, type Existing, type WriteKind } from '../kind.js';
import { monthOf } from './period-reads.js';

/** An absence row: the multipart fields and the checked attachment files. */
export interface AbsenceBody {
  readonly fields: NewAbsence;
  readonly attachments: readonly PreparedFile[];
}

const FLAGS = ['paid', 'full_day', 'sum_on_work_time', 'sum_total_on_work_time'] as const;

/** The coverage key of one CPF's absence: type, span and CPF. */
function coverKey(typeId: number, begin: string, end: string, cpf: string): string {
  return `${typeId}|${begin}|${end}|${cpf}`;
}

/** The window read to find absences of `[begin, end]`: they overlap its first 31 days (spec §8). */
function probeWindow(begin: string, end: string): DateWindow {
  const last = addDays(begin, MAX_WINDOW_DAYS - 1);
  return { from: begin, to: end < last ? end : last };
}

/** `push absences`. */
export const absences: WriteKind<AbsenceBody> = {
  name: 'absences',
  endpoint: 'POST absence',
  summary: 'creates absences (leave, vacations, certificates) for one or more CPFs, with attachments',
  columns: {
    national_registry: { type: 'cpfs', required: true, doc: 'CPF, or several separated by |' },
    description: { type: 'text', required: true, doc: 'short description' },
    details: { type: 'text', required: true, doc: 'details' },
    begin_date: { type: 'date', required: true, doc: 'first day' },
    end_date: { type: 'date', required: true, doc: 'last day' },
    paid: { type: 'boolean', required: true, doc: '1 paid, 0 otherwise' },
    full_day: { type: 'boolean', required: true, doc: '1 whole day, 0 partial' },
    sum_on_work_time: { type: 'boolean', required: true, doc: '1 adds to the daily worked time' },
    sum_total_on_work_time: { type: 'boolean', required: true, doc: "1 adds to the period's total worked time" },
    attachment: { type: 'files', doc: 'files to attach, separated by |, inside the files folder (optional)' },
  },
  references: [{ idField: 'absence_type_id', nameColumn: 'absence_type', table: 'absence_types', required: true }],
  body(v) {
    const begin = v.begin_date as string;
    const end = v.end_date as string;
    if (end < begin) throw new RowInvalid(`end_date ${end} is before begin_date ${begin}`);
    const flags = Object.fromEntries(FLAGS.map((f) => [f, v[f] as boolean])) as Record<(typeof FLAGS)[number], boolean>;
    return {
      fields: {
        national_registry: v.national_registry as string[],
        absence_type_id: v.absence_type_id as number,
        description: v.description as string,
        details: v.details as string,
        begin_date: begin,
        end_date: end,
        ...flags,
      },
      attachments: (v.attachment as PreparedFile[] | undefined) ?? [],
    };
  },
  key: ({ fields: f }) => `${f.absence_type_id}|${f.begin_date}|${f.end_date}|${[...f.national_registry].sort().join(',')}`,
  async check(ctx, candidates) {
    const reads = new Map<string, Promise<Absence[]>>();
    const read = (w: DateWindow) => {
      const k = `${w.from}|${w.to}`;
      let p = reads.get(k);
      if (!p) {
        p = ctx.api.getAbsencesFromPeriod(dateTimeBounds(w), undefined, ctx.call);
        reads.set(k, p);
      }
      return p;
    };
    const covered = new Map<string, string>();
    const out = new Map<number, Existing>();
    for (const c of candidates) {
      const f = c.body.fields;
      for (const a of await read(probeWindow(f.begin_date, f.end_date))) {
        for (const p of a.collaborators) {
          covered.set(coverKey(a.absence_type_id, a.begin_date.slice(0, 10), a.end_date.slice(0, 10), p.national_registry), `absence_id ${a.absence_id}`);
        }
      }
      const has = f.national_registry.filter((cpf) => covered.has(coverKey(f.absence_type_id, f.begin_date, f.end_date, cpf)));
      const where = [...new Set(has.map((cpf) => covered.get(coverKey(f.absence_type_id, f.begin_date, f.end_date, cpf))!))].join(', ');
      if (has.length === f.national_registry.length) {
        const single = /^absence_id (\d+)$/.exec(where)?.[1];
        out.set(c.index, { exists: true, note: `already registered (${where})`, ...(single ? { id: single } : {}) });
        continue;
      }
      const missing = f.national_registry.filter((cpf) => !has.includes(cpf));
      for (const cpf of missing) covered.set(coverKey(f.absence_type_id, f.begin_date, f.end_date, cpf), `an earlier row of this file`);
      if (has.length > 0) {
        out.set(c.index, {
          exists: false,
          body: { ...c.body, fields: { ...f, national_registry: missing } },
          note: `sent for ${missing.join(', ')} only: ${has.join(', ')} already ha${has.length > 1 ? 've' : 's'} it (${where})`,
        });
      }
    }
    return out;
  },
  async write(api, body, call) {
    const attachments: Attachment[] = [];
    for (const file of body.attachments) {
      attachments.push({ filename: file.name, mimeType: file.mimeType, content: await readPrepared(file) });
    }
    return { id: String((await api.createAbsence(body.fields, attachments, call)).absence_id) };
  },
  touches: ({ fields: f }) =>
    monthWindows(monthOf(f.begin_date).from, monthOf(f.end_date).to).map((window) => ({ resource: 'absences' as const, window })),
};
