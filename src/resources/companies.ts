/**
 * Companies (spec 2.2 `company`, spec 2.3 `economic-group`): one row per CNPJ, written by
 * the group walk. Details come from the company records; the group listing adds its
 * members, the headquarters and the branch of each. Each kind of row updates only the
 * columns it knows: a company known only from the group listing keeps details loaded
 * earlier, and a branch token (whose group lists only itself) leaves the headquarters
 * another connection recorded.
 */
import type { Company, EconomicGroupEntry } from '../api/schemas.js';
import type { StagedRow } from '../warehouse/staging.js';
import type { TableSpec } from '../warehouse/table-spec.js';
import { notPersonal, omitted } from './column-classes.js';
import { HOUR, type ResourceDeclaration } from './declaration.js';

const DETAILS = {
  cnpj: 'text',
  name: 'text',
  trading_name: 'text',
  cei: 'text',
  caepf: 'text',
  cno: 'text',
  address: 'text',
  address_number: 'text',
  complement: 'text',
  neighborhood: 'text',
  zip_code: 'text',
  phone: 'text',
  email: 'text',
} as const;

const spec = (columns: TableSpec['columns']): TableSpec => ({ table: 'companies', key: ['cnpj'], columns });

/** One kind of company row and the rows of that kind. */
export interface CompanyRows {
  readonly spec: TableSpec;
  readonly rows: readonly StagedRow[];
}

/** The rows a walk writes, by kind (pure): details with membership, details only, membership only. */
export function companyRows(companies: readonly Company[], group: readonly EconomicGroupEntry[]): CompanyRows[] {
  const hq = group.find((g) => g.is_headquarter)?.national_registry ?? null;
  // A branch token's group lists only the branch: the headquarters is then unknown.
  const membershipColumns: TableSpec['columns'] = hq === null ? { is_headquarter: 'bool' } : { is_headquarter: 'bool', headquarter_cnpj: 'text' };
  const membership = (g: EconomicGroupEntry): StagedRow => (hq === null ? { is_headquarter: g.is_headquarter } : { is_headquarter: g.is_headquarter, headquarter_cnpj: hq });
  const details = (c: Company): StagedRow => ({
    cnpj: c.national_registry,
    name: c.name,
    trading_name: c.trading_name,
    cei: c.cei,
    caepf: c.caepf,
    cno: c.cno,
    address: c.address,
    address_number: c.address_number,
    complement: c.complement,
    neighborhood: c.neighborhood,
    zip_code: c.zip_code,
    phone: c.phone,
    email: c.email,
  });
  const members = new Map(group.map((g) => [g.national_registry, g]));
  const detailed = new Set(companies.map((c) => c.national_registry));
  const both: StagedRow[] = [];
  const detailsOnly: StagedRow[] = [];
  for (const c of companies) {
    const g = members.get(c.national_registry);
    if (g) both.push({ ...details(c), ...membership(g) });
    else detailsOnly.push(details(c));
  }
  const groupOnly = group
    .filter((g) => !detailed.has(g.national_registry))
    .map((g) => ({ cnpj: g.national_registry, name: g.name, trading_name: g.trading_name, ...membership(g) }));
  return [
    { spec: spec({ ...DETAILS, ...membershipColumns }), rows: both },
    { spec: spec(DETAILS), rows: detailsOnly },
    { spec: spec({ cnpj: 'text', name: 'text', trading_name: 'text', ...membershipColumns }), rows: groupOnly },
  ].filter((k) => k.rows.length > 0);
}

/** `companies`: the group walk, once per connection and job. */
export const companies: ResourceDeclaration = {
  read: 'group',
  tables: { companies: spec({ ...DETAILS, is_headquarter: 'bool', headquarter_cnpj: 'text' }) },
  reads: [],
  schedule: { directory: 'current' },
  staleAfter: 3 * HOUR,
  roles: { company: 'companies' },
  privacy: {
    companies: {
      columns: {
        name: notPersonal('legal name of the company'),
        trading_name: notPersonal('trading name of the company'),
        caepf: omitted('identifier', "tax number of an employer who is a natural person (CAEPF)"),
        address: omitted('location', "the company's address (a person's when the employer is one)"),
        address_number: omitted('location', "the company's address"),
        complement: omitted('location', "the company's address"),
        neighborhood: omitted('location', "the company's address"),
        zip_code: omitted('location', "the company's address"),
        phone: omitted('contact', "the company's phone"),
        email: omitted('contact', "the company's e-mail (often a person's)"),
      },
    },
  },
};
