/**
 * The scope a loader writes in (docs/contracts.md `WindowScope`) and the checks that keep
 * a load inside it: loaders never write rows of a company other than the one asked for.
 */
import { cnpjString, isCalendarDate } from '../api/schemas.js';
import { isValidTimeZone } from '../util/time.js';
import { LoadError } from './errors.js';

/** A window of one company: both ends inclusive, dates `YYYY-MM-DD`, IANA zone of the API's times. */
export interface WindowScope {
  companyCnpj: string;
  from: string;
  to: string;
  timezone: string;
}

/** Throws unless `cnpj` is a 14-digit CNPJ. */
export function checkCnpj(table: string, cnpj: string): void {
  if (!cnpjString.safeParse(cnpj).success) {
    throw new LoadError('invalid_scope', table, `${table}: company ${JSON.stringify(cnpj)} is not a 14-digit CNPJ`);
  }
}

/** Throws unless `date` is a calendar date `YYYY-MM-DD`. */
export function checkDate(table: string, what: string, date: string): void {
  if (!isCalendarDate(date)) {
    throw new LoadError('invalid_scope', table, `${table}: ${what} ${JSON.stringify(date)} is not a date YYYY-MM-DD`);
  }
}

/** Throws unless `scope` names a company, a window with from <= to and a known time zone. */
export function checkScope(table: string, scope: WindowScope): void {
  checkCnpj(table, scope.companyCnpj);
  checkDate(table, 'window start', scope.from);
  checkDate(table, 'window end', scope.to);
  if (scope.from > scope.to) {
    throw new LoadError('invalid_scope', table, `${table}: window ${scope.from}..${scope.to} ends before it starts`);
  }
  if (!isValidTimeZone(scope.timezone)) {
    throw new LoadError('invalid_scope', table, `${table}: ${JSON.stringify(scope.timezone)} is not an IANA time zone`);
  }
}

/** A record with a spec 2.1 `company` block. */
export interface WithCompanyBlock {
  readonly national_registry: string;
  readonly company: { readonly national_registry: string };
}

const CPF_RE = /^\d{11}$/;

/**
 * spec 1.4 rule 4: throws when a record's company block is not `companyCnpj`; spec 1.2:
 * or when its CPF is not 11 digits (the fact tables rely on this check, not on a CHECK).
 */
export function checkCompanies(table: string, companyCnpj: string, records: readonly WithCompanyBlock[]): void {
  for (const r of records) {
    if (!CPF_RE.test(r.national_registry)) {
      throw new LoadError('invalid_record', table, `${table}: collaborator CPF ${JSON.stringify(r.national_registry)} is not 11 digits (spec 1.2)`);
    }
    if (r.company.national_registry !== companyCnpj) {
      throw new LoadError(
        'foreign_company',
        table,
        `${table}: collaborator ${r.national_registry} belongs to company ${r.company.national_registry}, not to ${companyCnpj} whose data is being loaded (spec 1.4 rule 4)`,
      );
    }
  }
}
