/**
 * Companies (spec 2.2 `company`, spec 2.3 `economic-group`): one row per CNPJ. Details
 * come from the company records; the group listing adds its members, which is the
 * headquarters and its branch of each. A company known only from the group listing
 * keeps details loaded earlier.
 */
import type { Company, EconomicGroupEntry } from '../api/schemas.js';
import type { WarehouseHandle } from './db.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { columnsOf, type RowValues } from './rows.js';
import { checkCnpj } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

const DETAIL_COLUMNS: readonly ColumnSpec[] = [
  'cnpj',
  'name',
  'trading_name',
  'cei',
  'caepf',
  'cno',
  'address',
  'address_number',
  'complement',
  'neighborhood',
  'zip_code',
  'phone',
  'email',
].map((name) => ({ name, type: 'text' as const }));

const MEMBERSHIP_COLUMNS: readonly ColumnSpec[] = [
  { name: 'is_headquarter', type: 'bool' },
  { name: 'headquarter_cnpj', type: 'text' },
];

const NAME_COLUMNS: readonly ColumnSpec[] = [
  { name: 'cnpj', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'trading_name', type: 'text' },
];

/**
 * The statements of a companies load (pure): companies with details and group
 * membership, with details only, and with group membership only — each updating only
 * the columns it knows.
 */
export function buildCompaniesLoad(schema: string, companies: readonly Company[], group: readonly EconomicGroupEntry[]): Record<string, BuiltQuery> {
  for (const c of [...companies, ...group]) checkCnpj('companies', c.national_registry);
  const hq = group.find((g) => g.is_headquarter)?.national_registry ?? null;
  // A branch token's group lists only the branch: the headquarters is then unknown, and
  // what another connection recorded about it is kept.
  const GROUP_COLUMNS = hq === null ? MEMBERSHIP_COLUMNS.slice(0, 1) : MEMBERSHIP_COLUMNS;
  const members = new Map(group.map((g) => [g.national_registry, g]));
  const detailed = new Set(companies.map((c) => c.national_registry));

  const details = (c: Company): RowValues => ({
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
  const membership = (g: EconomicGroupEntry): RowValues => ({
    is_headquarter: g.is_headquarter,
    headquarter_cnpj: hq,
  });

  const both: RowValues[] = [];
  const detailsOnly: RowValues[] = [];
  for (const c of companies) {
    const g = members.get(c.national_registry);
    if (g) both.push({ ...details(c), ...membership(g) });
    else detailsOnly.push(details(c));
  }
  const groupOnly = group
    .filter((g) => !detailed.has(g.national_registry))
    .map((g) => ({ cnpj: g.national_registry, name: g.name, trading_name: g.trading_name, ...membership(g) }));

  const upsert = (columns: readonly ColumnSpec[], rows: RowValues[]) =>
    buildUpsert({ schema, table: 'companies', key: ['cnpj'], columns }, columnsOf(columns, rows, (r) => r.cnpj as string));
  const out: Record<string, BuiltQuery> = {};
  if (both.length > 0) out['companies'] = upsert([...DETAIL_COLUMNS, ...GROUP_COLUMNS], both);
  if (detailsOnly.length > 0) out['companies (details only)'] = upsert(DETAIL_COLUMNS, detailsOnly);
  if (groupOnly.length > 0) out['companies (group only)'] = upsert([...NAME_COLUMNS, ...GROUP_COLUMNS], groupOnly);
  return out;
}

/** Loads companies and the economic group, in one transaction. */
export async function loadCompanies(w: WarehouseHandle, companies: readonly Company[], group: readonly EconomicGroupEntry[]): Promise<LoadStats> {
  const { byTable: _statements, ...total } = await runLoad(w.pool, buildCompaniesLoad(w.schema, companies, group));
  return { ...total, byTable: { companies: { ...total } } };
}
