/**
 * spec 4.2 `POST absence` (multipart): one absence per row for one or more CPFs, with attachments
 * read from files next to the input. A CPF has it when `absence/getFromPeriod` shows one of the same
 * type, first and last day that includes that CPF. A row whose CPFs all have it is skipped; one where
 * only some do is sent for the others only, so nobody gets it twice. Earlier rows of the file count.
 */
import type { Attachment, NewAbsence } from '../../api/client.js';
import { dateTimeBounds, monthWindows, MAX_WINDOW_DAYS, type DateWindow } from '../../plan/windows.js';
import { addDays } from '../../util/time.js';
import { readPrepared, type PreparedFile } from '../files.js';
import { readOnce, RowInvalid, valuesAsBody, type Existing, type WriteKind } from '../kind.js';
import { monthOf } from './period-reads.js';

/** An absence row: the multipart fields and the checked attachment files. */
export interface AbsenceBody {
  readonly fields: NewAbsence;
  readonly attachments: readonly PreparedFile[];
}

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
    sum_total_on_work_time: {
      type: 'boolean',
      required: true,
      doc: "1 adds to the period's total worked time",
    },
    attachment: { type: 'files', doc: 'files to attach, separated by |, inside the files folder (optional)' },
  },
  references: [
    { idField: 'absence_type_id', nameColumn: 'absence_type', table: 'absence_types', required: true },
  ],
  body(v) {
    // The files aside, the row's values are the multipart fields.
    const { attachment, ...fields } = valuesAsBody<NewAbsence & { attachment?: PreparedFile[] }>(v);
    const { begin_date: begin, end_date: end } = fields;
    if (end < begin) throw new RowInvalid(`end_date ${end} is before begin_date ${begin}`);
    return { fields, attachments: attachment ?? [] };
  },
  key: ({ fields: f }) =>
    `${f.absence_type_id}|${f.begin_date}|${f.end_date}|${[...f.national_registry].sort().join(',')}`,
  async check(ctx, candidates) {
    const read = readOnce((w: DateWindow) =>
      ctx.api.getAbsencesFromPeriod(dateTimeBounds(w), undefined, ctx.call),
    );
    const covered = new Map<string, string>();
    const out = new Map<number, Existing>();
    for (const c of candidates) {
      const f = c.body.fields;
      for (const a of await read(probeWindow(f.begin_date, f.end_date))) {
        for (const p of a.collaborators) {
          covered.set(
            coverKey(
              a.absence_type_id,
              a.begin_date.slice(0, 10),
              a.end_date.slice(0, 10),
              p.national_registry,
            ),
            `absence_id ${a.absence_id}`,
          );
        }
      }
      const has = f.national_registry.filter((cpf) =>
        covered.has(coverKey(f.absence_type_id, f.begin_date, f.end_date, cpf)),
      );
      const where = [
        ...new Set(
          has.map((cpf) => covered.get(coverKey(f.absence_type_id, f.begin_date, f.end_date, cpf))!),
        ),
      ].join(', ');
      if (has.length === f.national_registry.length) {
        const single = /^absence_id (\d+)$/.exec(where)?.[1];
        out.set(c.index, {
          exists: true,
          note: `already registered (${where})`,
          ...(single ? { id: single } : {}),
        });
        continue;
      }
      const missing = f.national_registry.filter((cpf) => !has.includes(cpf));
      for (const cpf of missing)
        covered.set(
          coverKey(f.absence_type_id, f.begin_date, f.end_date, cpf),
          `an earlier row of this file`,
        );
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
    monthWindows(monthOf(f.begin_date).from, monthOf(f.end_date).to).map((window) => ({
      resource: 'absences' as const,
      window,
    })),
};
