/**
 * Collaborators (spec 2.1 block, `GET collaborator`: the authoritative list of active
 * collaborators): current attributes per company and CPF, collaborators no longer listed
 * marked inactive (never deleted), and the SCD2 `collaborator_history`. Also the table
 * spec of collaborators only seen in period data (dismissed ones), which every resource
 * whose elements carry collaborator blocks adds to, without overwriting listed ones.
 */
import type { CollaboratorBlock } from '../api/schemas.js';
import { recordHistory } from '../warehouse/collaborator-history.js';
import { stageName } from '../warehouse/staging.js';
import { wholeCompany, type TableSpec } from '../warehouse/table-spec.js';
import { defineResource, readOf, type RowOf } from './declaration.js';

const COLUMNS = {
  company_cnpj: 'text',
  cpf: 'text',
  registration_number: 'text',
  email: 'text',
  name: 'text',
  occupation: 'text',
  department: 'text',
  team: 'text',
  business_unit: 'text',
  admission_date: 'date',
  pis: 'text',
  cpf_as_sent: 'text',
} as const;

/** Collaborators seen in period data: added when the warehouse lacks them, inactive, never overwritten. */
export const SEEN_COLLABORATORS = {
  table: 'collaborators',
  key: ['company_cnpj', 'cpf'],
  columns: COLUMNS,
  fixed: { active: 'false', source: `'period'` },
  onConflict: 'nothing',
} as const satisfies TableSpec;

/** The row of a collaborator block of `company` (`asSent`: its CPF as sent, when that differed). */
export function collaboratorRow(company: string, b: CollaboratorBlock, asSent: string | null): RowOf<typeof SEEN_COLLABORATORS> {
  return {
    company_cnpj: company,
    cpf: b.national_registry,
    registration_number: b.registration_number,
    email: b.email,
    name: b.name,
    occupation: b.occupation,
    department: b.department,
    team: b.team,
    business_unit: b.business_unit,
    admission_date: b.admission_date,
    pis: b.pis,
    cpf_as_sent: asSent,
  };
}

/**
 * Which record of a CPF a row is about: the record's admission date. One CPF can have
 * two records in a company and period (a duplicated CPF, a re-hire within the month),
 * each with its own admission; both come back from the period endpoints.
 */
export function collaboratorRecord(b: Pick<CollaboratorBlock, 'admission_date'>): string {
  return b.admission_date ?? '';
}

const tables = {
  collaborators: {
    table: 'collaborators',
    key: ['company_cnpj', 'cpf'],
    columns: COLUMNS,
    fixed: { active: 'true', source: `'list'` },
    missing: { mode: 'deactivate', where: wholeCompany },
  },
} as const satisfies Record<string, TableSpec>;

/** `collaborators`: the company's list, once per job. */
export const collaborators = defineResource({
  read: 'list',
  tables,
  reads: [
    readOf(tables, {
      endpoint: 'collaborator',
      query: () => ({}),
      people: (c) => [c],
      rows: (c, out, x) => out.collaborators(collaboratorRow(x.company, c, x.cpfAsSent(c))),
    }),
  ],
  afterMerge: async (client, schema, scope) => ({
    collaborator_history: await recordHistory(client, schema, scope.company!, stageName('collaborators')),
  }),
});
