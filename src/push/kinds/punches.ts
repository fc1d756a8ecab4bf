/**
 * spec 4.2 `POST point`: one punch per row (CPF and local date-time). It exists when
 * `point/getFromPeriod` shows a punch of that CPF at the same second; the reads are grouped by month,
 * many CPFs per request, so thousands of punches cost a few reads, not one per row.
 */
import type { NewPoint } from '../../api/client.js';
import { groupBy, type Existing, type WriteKind } from '../kind.js';
import { monthOf, pointsOf } from './period-reads.js';

/** `push punches`. */
export const punches: WriteKind<NewPoint> = {
  name: 'punches',
  endpoint: 'POST point',
  summary: 'registers punches (origin API), e.g. imported from an old clock',
  columns: {
    national_registry: { type: 'cpf', required: true, doc: 'CPF of the collaborator' },
    datetime: { type: 'datetime', required: true, doc: "local date-time of the punch (company's time zone)" },
  },
  references: [],
  body: (v) => ({ national_registry: v.national_registry as string, datetime: v.datetime as string }),
  key: (body) => `${body.national_registry}|${body.datetime}`,
  async check(ctx, candidates) {
    const byMonth = groupBy(candidates, (c) => c.body.datetime.slice(0, 7));
    const out = new Map<number, Existing>();
    for (const list of byMonth.values()) {
      const days = list.map((c) => c.body.datetime.slice(0, 10)).sort();
      const window = { from: days[0]!, to: days[days.length - 1]! };
      const seen = new Map<string, number>();
      for (const person of await pointsOf(
        ctx,
        window,
        list.map((c) => c.body.national_registry),
      )) {
        for (const day of person.days)
          for (const p of day.points) seen.set(`${person.national_registry}|${p.datetime}`, p.point_id);
      }
      for (const c of list) {
        const id = seen.get(c.key);
        if (id !== undefined)
          out.set(c.index, {
            exists: true,
            id: String(id),
            note: `the API already has this punch (point_id ${id})`,
          });
      }
    }
    return out;
  },
  async write(api, body, call) {
    return { id: String((await api.registerPoint(body, call)).point_id) };
  },
  touches: (body) => [{ resource: 'punches', window: monthOf(body.datetime.slice(0, 10)) }],
};
