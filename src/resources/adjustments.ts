/**
 * Punch-adjustment requests (spec 2.9, `adjustment`). The API gives them no id, so the
 * window's rows are replaced; each request is keyed by its position among the
 * collaborator's requests of the day, so reloading the same answer rewrites nothing.
 */
import { inWindow, type TableSpec } from '../warehouse/table-spec.js';
import { collaboratorRecord } from './collaborators.js';
import { omitted, person, PERSON_COLUMNS } from './column-classes.js';
import { defineResource, HORIZON_FACTS, declareRead, sequencer, windowQuery } from './declaration.js';

const tables = {
  adjustment_requests: {
    table: 'adjustment_requests',
    key: ['company_cnpj', 'cpf', 'collaborator_record', 'request_date', 'seq'],
    columns: {
      ...PERSON_COLUMNS,
      request_date: 'date',
      seq: 'int4',
      requests_in_day: 'int4',
      adjustment_type: 'text',
      status: 'text',
      collaborator_reason: 'text',
      manager_observation: 'text',
      approved_by: 'text',
      created_at_local: 'timestamp',
      created_at: 'timestamptz',
      updated_at_local: 'timestamp',
      updated_at: 'timestamptz',
    },
    missing: { mode: 'delete', where: inWindow('request_date') },
  },
} as const satisfies Record<string, TableSpec>;

/** `adjustments`: adjustment requests of one month window per job. */
export const adjustments = defineResource({
  read: 'month',
  tables,
  ...HORIZON_FACTS,
  privacy: {
    adjustment_requests: {
      columns: {
        ...person(),
        collaborator_reason: omitted('free_text', "the collaborator's justification"),
        manager_observation: omitted('free_text', "the manager's observation"),
        approved_by: { ...omitted('name', 'name of the manager who decided'), someoneElse: true },
      },
    },
  },
  reads: [
    declareRead('month', tables, {
      endpoint: 'adjustment',
      query: windowQuery,
      people: (c) => [c],
      rows(c, out, x) {
        const seq = sequencer();
        const record = collaboratorRecord(c);
        for (const a of c.adjustments) {
          out.adjustment_requests({
            company_cnpj: x.company,
            cpf: c.national_registry,
            collaborator_record: record,
            request_date: a.date,
            seq: seq(a.date),
            requests_in_day: a.requests_in_day,
            adjustment_type: a.type,
            status: a.status,
            collaborator_reason: a.collaborator_reason,
            manager_observation: a.manager_observation,
            approved_by: a.approved_by,
            created_at_local: a.created_at,
            created_at: x.toUtc(a.created_at),
            updated_at_local: a.updated_at,
            updated_at: x.toUtc(a.updated_at),
          });
        }
      },
    }),
  ],
});
