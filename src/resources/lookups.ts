/**
 * The ten lookup lists of a company (spec 2.4), read once per company in one job: upserted by
 * (company, id); a record no longer listed becomes `active = false` (the API lists only active
 * ones) until listed again. The emulator, privacy and push derive their lists from these.
 */
import { wholeCompany, type TableSpec } from '../warehouse/table-spec.js';
import { notPersonal } from './column-classes.js';
import { defineResource, HOUR, declareRead } from './declaration.js';

/** The lists of `{ id, description | name }` records (spec 2.4): endpoint, warehouse table, label field. */
export const LOOKUP_LISTS = [
  { endpoint: 'department', table: 'departments', label: 'description' },
  { endpoint: 'occupation', table: 'occupations', label: 'description' },
  { endpoint: 'cost-center', table: 'cost_centers', label: 'name' },
  { endpoint: 'unit', table: 'units', label: 'name' },
  { endpoint: 'journey', table: 'journeys', label: 'description' },
  { endpoint: 'point-rule', table: 'point_rules', label: 'description' },
  { endpoint: 'collaborator-settings', table: 'collaborator_settings', label: 'description' },
  { endpoint: 'barrier', table: 'digital_fences', label: 'name' },
  { endpoint: 'fired-type', table: 'dismissal_types', label: 'name' },
] as const;

/** One lookup table; `absence_types` (spec 2.4 `absence/types`) says more of its records than a label. */
export type LookupTable = (typeof LOOKUP_LISTS)[number]['table'] | 'absence_types';

/** Every lookup list: endpoint, warehouse table, label field; in the order they are read. */
export const LOOKUP_READS = [
  ...LOOKUP_LISTS,
  { endpoint: 'absence/types', table: 'absence_types', label: 'description' } as const,
];

/** Every lookup table, in the order they are read. */
export const LOOKUP_TABLES: readonly LookupTable[] = LOOKUP_READS.map((l) => l.table);

/** A lookup table of `columns` besides (company, id). */
const lookup = (table: LookupTable, columns: TableSpec['columns']): TableSpec => ({
  table,
  key: ['company_cnpj', 'id'],
  columns: { company_cnpj: 'text', id: 'int4', ...columns },
  fixed: { active: 'true' },
  missing: { mode: 'deactivate', where: wholeCompany },
});

const tables: Record<LookupTable, TableSpec> = {
  ...(Object.fromEntries(
    LOOKUP_LISTS.map((l) => [l.table, lookup(l.table, { [l.label]: 'text' })]),
  ) as Record<(typeof LOOKUP_LISTS)[number]['table'], TableSpec>),
  absence_types: {
    ...lookup('absence_types', {
      description: 'text',
      paid_leave: 'bool',
      comp_time: 'bool',
      compensation: 'bool',
      can_request_app: 'bool',
    }),
    referredBy: [['company_cnpj', 'absence_type_id']],
  },
};

/** `lookups`: every lookup list of the company, once per job. */
export const lookups = defineResource({
  read: 'list',
  tables,
  schedule: { directory: 'current' },
  staleAfter: 3 * HOUR,
  recordId: 'id',
  privacy: Object.fromEntries(
    LOOKUP_READS.map(({ table, label }) => [
      table,
      { columns: { [label]: notPersonal('label of a lookup record') } },
    ]),
  ),
  reads: [
    ...LOOKUP_LISTS.map(({ endpoint, table, label }) =>
      declareRead('list', tables, {
        endpoint,
        query: () => ({}),
        rows: (r, out, x) =>
          out[table]({
            company_cnpj: x.company,
            id: r.id,
            [label]: 'description' in r ? r.description : r.name,
          }),
      }),
    ),
    declareRead('list', tables, {
      endpoint: 'absence/types',
      query: () => ({}),
      // spec 2.4: the record's fields are the columns, but for its `company` block.
      rows: ({ company: _, ...t }, out, x) => out.absence_types({ ...t, company_cnpj: x.company }),
    }),
  ],
});
