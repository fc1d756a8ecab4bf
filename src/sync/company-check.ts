/**
 * spec 1.4 rule 4: every read record carries the `company` block of its company of
 * origin. A window read for company X must only hold records of X.
 */
import { CompanyMismatchError } from './errors.js';

/** Anything with a spec 2.1 `company` block. */
interface WithCompany {
  readonly company: { readonly national_registry: string };
}

/**
 * Throws {@link CompanyMismatchError} when a record's `company.national_registry` is not
 * `expected`. `label` names a record for the message (e.g. its CPF).
 */
export function assertCompany<T extends WithCompany>(
  endpoint: string,
  expected: string,
  records: readonly T[],
  label: (r: T, index: number) => string = (_r, i) => `record ${i}`,
): void {
  records.forEach((r, i) => {
    const found = r.company.national_registry;
    if (found !== expected) throw new CompanyMismatchError({ endpoint, expected, found, where: label(r, i) });
  });
}
