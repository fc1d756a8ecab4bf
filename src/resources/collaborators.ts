/**
 * Collaborators (spec 2.1 block, `GET collaborator`: the authoritative list of active
 * collaborators): current attributes per company and collaborator record, records no longer
 * listed marked inactive (never deleted), the SCD2 `collaborator_history` and the
 * `employments` mart. Also the spec of records only seen in period data (dismissed ones),
 * which every resource whose elements carry collaborator blocks adds to.
 */
import type { CollaboratorBlock } from '../api/schemas.js';
import { recordHistory } from '../warehouse/collaborator-history.js';
import { stageName } from '../warehouse/staging.js';
import { wholeCompany, type TableSpec } from '../warehouse/table-spec.js';
import { employmentAttributes, omitted, person, PERSON_COLUMNS, shown } from './column-classes.js';
import { defineResource, HOUR, declareRead, type RowOf } from './declaration.js';

const COLUMNS = {
  ...PERSON_COLUMNS,
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
  attributes_as_of: 'date',
} as const;

/**
 * Collaborator records seen in period data: added when the warehouse lacks them; one not in
 * the active list takes the attributes of period data at least as new as what it holds
 * (`attributes_as_of`: a later read of the same days is newer news), a listed one never.
 */
const SEEN_COLLABORATORS = {
  table: 'collaborators',
  key: ['company_cnpj', 'cpf', 'collaborator_record'],
  columns: COLUMNS,
  fixed: { active: 'false', source: `'period'` },
  updateWhen:
    'NOT t.active AND (t.attributes_as_of IS NULL OR t.attributes_as_of <= excluded.attributes_as_of)',
} as const satisfies TableSpec;

/** A collaborator block's row (`asSent`: its CPF as sent, if it differed; `asOf`: null for the list). */
function collaboratorRow(
  company: string,
  b: CollaboratorBlock,
  asSent: string | null,
  asOf: string | null,
): RowOf<typeof SEEN_COLLABORATORS> {
  return {
    company_cnpj: company,
    cpf: b.national_registry,
    collaborator_record: collaboratorRecord(b),
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
    attributes_as_of: asOf,
  };
}

/**
 * Which record of a CPF a row is about: its admission date. One CPF can have two records in
 * a company and period (a duplicate, a re-hire within the month), both in the period answers.
 */
export const collaboratorRecord = (b: Pick<CollaboratorBlock, 'admission_date'>): string =>
  b.admission_date ?? '';

const collaboratorAttributes = {
  registration_number: omitted('identifier', 'registration (matrícula) number'),
  email: omitted('contact'),
  name: omitted('name'),
  ...employmentAttributes,
} as const;

const tables = {
  collaborators: {
    table: 'collaborators',
    key: ['company_cnpj', 'cpf', 'collaborator_record'],
    columns: COLUMNS,
    fixed: { active: 'true', source: `'list'` },
    missing: { mode: 'deactivate', where: wholeCompany },
    // A fact names the collaborator record it is about; an erasure or a finding, the person.
    referredBy: [
      ['company_cnpj', 'cpf', 'collaborator_record'],
      ['company_cnpj', 'cpf'],
    ],
  },
} as const satisfies Record<string, TableSpec>;

/** `collaborators`: the company's list, once per job. */
export const collaborators = defineResource({
  read: 'list',
  tables,
  marts: { directory: true },
  schedule: { directory: 'current' },
  staleAfter: 3 * HOUR,
  checks: ['history_overlap'],
  directory: { seen: SEEN_COLLABORATORS, seenRow: collaboratorRow },
  privacy: {
    collaborators: {
      preserve: ['first_seen_at'],
      columns: {
        ...person(),
        ...collaboratorAttributes,
        admission_date: shown('employment'),
        pis: omitted('identifier', 'PIS social-security number'),
        cpf_as_sent: omitted('identifier', 'the CPF as the API sent it, when it differed from its 11 digits'),
      },
    },
    collaborator_history: { onReturn: 'keep', columns: { ...person(), ...collaboratorAttributes } },
  },
  reads: [
    declareRead('list', tables, {
      endpoint: 'collaborator',
      query: () => ({}),
      people: (c) => [c],
      rows: (c, out, x) => out.collaborators(collaboratorRow(x.company, c, x.cpfAsSent(c), null)),
    }),
  ],
  afterMerge: async (client, schema, scope) => ({
    collaborator_history: await recordHistory(client, schema, scope.company, stageName('collaborators')),
  }),
});
