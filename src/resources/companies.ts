/**
 * Companies (spec 2.2 `company`, spec 2.3 `economic-group`): one row per CNPJ, written by the
 * group walk: details from the company records, membership (headquarters or branch of which)
 * from the group listing. Each kind of row updates only the columns it knows: a company known
 * only from the listing keeps details loaded earlier, and a branch token (whose group lists
 * only itself) leaves the headquarters another connection recorded.
 */
import type { Company, EconomicGroupEntry } from '../api/schemas.js';
import type { TableSpec } from '../warehouse/table-spec.js';
import { notPersonal, omitted } from './column-classes.js';
import { defineResource, HOUR } from './declaration.js';

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

/** Membership: a headquarters unknown to the walk (a branch token's) leaves the recorded one. */
const MEMBERSHIP = { is_headquarter: 'bool', headquarter_cnpj: 'text' } as const;

const company = <C extends TableSpec['columns']>(columns: C) =>
  ({
    table: 'companies',
    key: ['cnpj'],
    columns,
    keepOnNull: ['headquarter_cnpj'],
    referredBy: [['company_cnpj'], ['headquarter_cnpj']],
  }) as const;

/** The three kinds of rows of one table: details with membership, details only, membership only. */
const tables = {
  companies: company({ ...DETAILS, ...MEMBERSHIP }),
  company_details: company(DETAILS),
  group_members: company({ cnpj: 'text', name: 'text', trading_name: 'text', ...MEMBERSHIP }),
} as const satisfies Record<string, TableSpec>;

const details = (c: Company) => ({
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

/** `companies`: the group walk, once per connection and job. */
export const companies = defineResource({
  read: 'group',
  tables,
  schedule: { directory: 'current' },
  staleAfter: 3 * HOUR,
  roles: { company: 'companies' },
  privacy: {
    companies: {
      columns: {
        name: notPersonal('legal name of the company'),
        trading_name: notPersonal('trading name of the company'),
        caepf: omitted('identifier', 'tax number of an employer who is a natural person (CAEPF)'),
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
  walk: {
    group: 'economic-group',
    company: 'company',
    rows(group, records, out) {
      const hq = group.find((g) => g.is_headquarter)?.national_registry ?? null;
      const membership = (g: EconomicGroupEntry) => ({
        is_headquarter: g.is_headquarter,
        headquarter_cnpj: hq,
      });
      const members = new Map(group.map((g) => [g.national_registry, g]));
      for (const c of records) {
        const g = members.get(c.national_registry);
        if (g) out.companies({ ...details(c), ...membership(g) });
        else out.company_details(details(c));
      }
      const detailed = new Set(records.map((c) => c.national_registry));
      for (const g of group) {
        if (!detailed.has(g.national_registry))
          out.group_members({
            cnpj: g.national_registry,
            name: g.name,
            trading_name: g.trading_name,
            ...membership(g),
          });
      }
    },
  },
});
