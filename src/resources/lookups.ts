/**
 * The ten lookup lists of a company (spec 2.4), read once per company in one job: upserted
 * by (company, id); a record no longer listed becomes `active = false` (the API lists only
 * active ones) and active again when it is listed again.
 */
import type { ReadEndpointName } from '../api/endpoints.js';
import { wholeCompany, type TableSpec } from '../warehouse/table-spec.js';
import { notPersonal } from './column-classes.js';
import { defineResource, HOUR, readOf, type ReadDeclaration, type ReadEndpoint } from './declaration.js';

/** A lookup list with `description` or `name` (spec 2.4). */
function lookup<T extends string, L extends 'description' | 'name'>(table: T, label: L) {
  return {
    table,
    key: ['company_cnpj', 'id'],
    columns: { company_cnpj: 'text', id: 'int4', [label]: 'text' } as { company_cnpj: 'text'; id: 'int4' } & { [K in L]: 'text' },
    fixed: { active: 'true' },
    missing: { mode: 'deactivate', where: wholeCompany },
  } as const satisfies TableSpec;
}

const tables = {
  departments: lookup('departments', 'description'),
  occupations: lookup('occupations', 'description'),
  cost_centers: lookup('cost_centers', 'name'),
  units: lookup('units', 'name'),
  journeys: lookup('journeys', 'description'),
  point_rules: lookup('point_rules', 'description'),
  collaborator_settings: lookup('collaborator_settings', 'description'),
  digital_fences: lookup('digital_fences', 'name'),
  dismissal_types: lookup('dismissal_types', 'name'),
  absence_types: {
    table: 'absence_types',
    key: ['company_cnpj', 'id'],
    columns: { company_cnpj: 'text', id: 'int4', description: 'text', paid_leave: 'bool', comp_time: 'bool', compensation: 'bool', can_request_app: 'bool' },
    fixed: { active: 'true' },
    missing: { mode: 'deactivate', where: wholeCompany },
  },
} as const satisfies Record<string, TableSpec>;

type Tables = typeof tables;

/** A list read of `{ id, description | name }` records (spec 2.4) into `table`. */
function listRead(endpoint: ReadEndpointName, table: Exclude<keyof Tables, 'absence_types'>): ReadDeclaration<ReadEndpoint, Tables> {
  const label = 'description' in tables[table].columns ? 'description' : 'name';
  return readOf(tables, {
    endpoint,
    query: () => ({}),
    rows: (r, out, x) => {
      const record = r as unknown as Record<string, string | number>;
      (out[table] as (row: Record<string, unknown>) => void)({ company_cnpj: x.company, id: record.id, [label]: record[label] });
    },
  });
}

/** `lookups`: every lookup list of the company, once per job. */
export const lookups = defineResource({
  read: 'list',
  tables,
  schedule: { directory: 'current' },
  staleAfter: 3 * HOUR,
  recordId: 'id',
  privacy: Object.fromEntries(
    Object.values(tables).map((t) => [t.table, { columns: { ['name' in t.columns ? 'name' : 'description']: notPersonal('label of a lookup record') } }]),
  ),
  reads: [
    listRead('department', 'departments'),
    listRead('occupation', 'occupations'),
    listRead('cost-center', 'cost_centers'),
    listRead('unit', 'units'),
    listRead('journey', 'journeys'),
    listRead('point-rule', 'point_rules'),
    listRead('collaborator-settings', 'collaborator_settings'),
    listRead('barrier', 'digital_fences'),
    listRead('fired-type', 'dismissal_types'),
    readOf(tables, {
      endpoint: 'absence/types',
      query: () => ({}),
      rows: (t, out, x) =>
        out.absence_types({
          company_cnpj: x.company,
          id: t.id,
          description: t.description,
          paid_leave: t.paid_leave,
          comp_time: t.comp_time,
          compensation: t.compensation,
          can_request_app: t.can_request_app,
        }),
    }),
  ],
});
