/**
 * spec 4.2 `PUT collaborator/dismissal`: dismisses a collaborator found by CPF or registration
 * number. The API accepts a dismissal of someone already dismissed (and would move the date), and
 * no read shows dismissals, so the check is indirect:
 * - a collaborator in the active list (`GET collaborator`) is dismissed;
 * - one not in it but known in the company (the warehouse's collaborators, or the company's period
 *   data of the 31 days up to the dismissal date, `collaborator/totalHours`, which names everyone
 *   with days in the period by CPF and registration number) is already dismissed (or blocked) and
 *   skipped;
 * - one found nowhere is sent, and the API answers `collaborator_not_found` if it is unknown.
 * A row identified only by `collaborator_id` is refused before sending: no read shows collaborator
 * ids, so whether it is already dismissed cannot be checked.
 */
import type { Dismissal } from '../../api/client.js';
import type { CollaboratorBlock } from '../../api/schemas.js';
import { MAX_WINDOW_DAYS, type DateWindow } from '../../plan/windows.js';
import { addDays } from '../../util/time.js';
import { warehouseDb } from '../../warehouse/db.js';
import {
  readOnce,
  RowInvalid,
  valuesAsBody,
  type CheckContext,
  type Existing,
  type WriteKind,
} from '../kind.js';

/** The CPFs the warehouse knows in the company, and registration number → CPF. */
async function knownToWarehouse(ctx: CheckContext) {
  const rows = await warehouseDb(ctx.db, ctx.schema)
    .selectFrom('collaborators')
    .select(['cpf', 'registration_number'])
    .where('company_cnpj', '=', ctx.company)
    .execute();
  const byRegistration = new Map(rows.map((r): [string, string] => [String(r.registration_number), r.cpf]));
  return { cpfs: new Set(rows.map((r) => r.cpf)), byRegistration };
}

/** The 31 days (spec §8) up to the dismissal date, or up to today for a date still ahead. */
function probeWindow(dismissalDate: string, today: string): DateWindow {
  const to = dismissalDate < today ? dismissalDate : today;
  return { from: addDays(to, -(MAX_WINDOW_DAYS - 1)), to };
}

/** `push dismissals`. */
export const dismissals: WriteKind<Dismissal> = {
  name: 'dismissals',
  endpoint: 'PUT collaborator/dismissal',
  summary: 'dismisses collaborators (cannot be undone through the API)',
  columns: {
    national_registry: { type: 'cpf', doc: 'CPF of the collaborator (this or registration_number)' },
    registration_number: { type: 'text', doc: 'registration number (this or national_registry)' },
    collaborator_id: { type: 'integer', doc: 'collaborator id, sent along; not enough on its own' },
    dismissal_date: { type: 'date', required: true, doc: 'dismissal date' },
    fired_description: { type: 'text', doc: 'free text, optional' },
  },
  references: [
    { idField: 'fired_type_id', nameColumn: 'fired_type', table: 'dismissal_types', required: true },
  ],
  body(v) {
    if (v.national_registry === undefined && v.registration_number === undefined) {
      throw new RowInvalid(
        'give national_registry or registration_number: no read of the API shows collaborator ids, so a dismissal by collaborator_id alone could not be checked',
      );
    }
    return valuesAsBody(v);
  },
  key: (body) =>
    body.national_registry !== undefined
      ? `cpf:${body.national_registry}`
      : `registration:${body.registration_number}`,
  async check(ctx, candidates) {
    const active = await ctx.api.listCollaborators(undefined, ctx.call);
    const activeByCpf = new Map(active.map((c) => [c.national_registry, c]));
    const activeByRegistration = new Map(active.map((c) => [c.registration_number, c]));
    let warehouse: Awaited<ReturnType<typeof knownToWarehouse>> | undefined;
    const inPeriod = readOnce((w: DateWindow) =>
      ctx.api.getTotalHours({ beginDate: w.from, endDate: w.to }, undefined, ctx.call),
    );
    const planned = new Map<string, number>();
    const out = new Map<number, Existing>();
    for (const c of candidates) {
      const b = c.body;
      const person: CollaboratorBlock | undefined =
        b.national_registry !== undefined
          ? activeByCpf.get(b.national_registry)
          : activeByRegistration.get(b.registration_number!);
      if (person) {
        // Two rows naming the same person differently (CPF in one, registration in the other).
        const earlier = planned.get(person.national_registry);
        if (earlier !== undefined)
          out.set(c.index, {
            exists: true,
            note: `the same collaborator as an earlier row (CPF ${person.national_registry})`,
          });
        else planned.set(person.national_registry, c.index);
        continue;
      }
      warehouse ??= await knownToWarehouse(ctx);
      const cpf = b.national_registry ?? warehouse.byRegistration.get(b.registration_number!);
      const who = cpf !== undefined ? `CPF ${cpf}` : `registration ${b.registration_number}`;
      if (cpf !== undefined && warehouse.cpfs.has(cpf)) {
        out.set(c.index, {
          exists: true,
          note: `${who} is not in the active list of company ${ctx.company} and the warehouse knows it: already dismissed`,
        });
        continue;
      }
      const seen = await inPeriod(probeWindow(b.dismissal_date, ctx.today));
      const match = seen.find((p) =>
        cpf !== undefined ? p.national_registry === cpf : p.registration_number === b.registration_number,
      );
      if (match) {
        out.set(c.index, {
          exists: true,
          note: `${who} is not in the active list of company ${ctx.company} but its period data shows it: already dismissed (or blocked)`,
        });
      }
    }
    return out;
  },
  async write(api, body, call) {
    await api.dismissCollaborator(body, call);
    return {};
  },
  touches: () => [{ resource: 'collaborators' }],
  // No read shows a dismissal date: the one sent dates the end of the employment (employments.left_on).
  async recorded(db, schema, at, body) {
    await warehouseDb(db, schema)
      .insertInto('pushed_dismissals')
      .values((eb) => ({
        company_cnpj: at.company,
        cpf: eb.fn.coalesce(
          eb.val(body.national_registry ?? null),
          eb
            .selectFrom('collaborators as c')
            .select('c.cpf')
            .where('c.company_cnpj', '=', at.company)
            .where('c.registration_number', '=', body.registration_number ?? null)
            .orderBy('c.admission_date', (o) => o.desc().nullsLast())
            .limit(1)
            .$asScalar(),
        ),
        registration_number: body.registration_number ?? null,
        dismissal_date: body.dismissal_date,
        // The type sent, named as the lookup lists it: it splits leavers into voluntary and involuntary.
        dismissal_type_id: body.fired_type_id,
        dismissal_type: eb
          .selectFrom('dismissal_types as t')
          .select('t.name')
          .where('t.company_cnpj', '=', at.company)
          .where('t.id', '=', body.fired_type_id)
          .$asScalar(),
        connection: at.connection,
      }))
      .execute();
  },
};
