/**
 * Inconsistencies (spec 2.10, `inconsistency`). No id in the API: the window's rows are
 * replaced, each occurrence keyed by its position among the collaborator's occurrences
 * of the day. One CPF's records (a duplicate, a re-hire) are kept apart by collaborator_record.
 */
import { durationToSeconds } from '../util/duration.js';
import { inWindow, type TableSpec } from '../warehouse/table-spec.js';
import { collaboratorRecord } from './collaborators.js';
import { omitted, person } from './column-classes.js';
import { defineResource, HORIZON_FACTS, readOf } from './declaration.js';
import { sequencer } from './sequence.js';

const tables = {
  inconsistencies: {
    table: 'inconsistencies',
    key: ['company_cnpj', 'cpf', 'collaborator_record', 'occurrence_date', 'seq'],
    columns: {
      company_cnpj: 'text',
      cpf: 'text',
      collaborator_record: 'text',
      occurrence_date: 'date',
      seq: 'int4',
      inconsistency_type: 'text',
      value_seconds: 'int4',
      justification: 'text',
      status: 'text',
    },
    missing: { mode: 'delete', where: inWindow('occurrence_date') },
  },
} as const satisfies Record<string, TableSpec>;

/** `inconsistencies`: occurrences of one month window per job. */
export const inconsistencies = defineResource({
  read: 'month',
  tables,
  ...HORIZON_FACTS,
  privacy: { inconsistencies: { columns: { ...person(), justification: omitted('free_text', "the collaborator's justification") } } },
  reads: [
    readOf(tables, {
      endpoint: 'inconsistency',
      query: ({ window }) => ({ begin_date: window!.from, end_date: window!.to }),
      people: (c) => [c],
      rows(c, out, x) {
        const seq = sequencer();
        const record = collaboratorRecord(c);
        for (const o of c.occurrences) {
          out.inconsistencies({
            company_cnpj: x.company,
            cpf: c.national_registry,
            collaborator_record: record,
            occurrence_date: o.date,
            seq: seq(o.date),
            inconsistency_type: o.type,
            // spec 2.10: a signed duration, negative when short
            value_seconds: durationToSeconds(o.value),
            justification: o.justification,
            status: o.status,
          });
        }
      },
    }),
  ],
});
