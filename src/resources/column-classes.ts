/**
 * How a declaration classifies the personal data (LGPD) of its tables' columns, and what each
 * reader role sees of them (docs/privacy.md). src/privacy/personal-data.ts gathers them.
 */
import { createHash } from 'node:crypto';

/** A kind of personal data, as the privacy doc groups them. */
export type PersonalDataCategory =
  'identifier' | 'name' | 'contact' | 'location' | 'biometric' | 'health' | 'employment' | 'free_text';

/** What `workforce_analyst` sees of a column: its value, a pseudonym of it, or nothing. */
export type AnalystAccess = 'shown' | 'pseudonym' | 'omitted';

/** A classified column (`category: null`: reviewed, not personal); `note`: whose or why, for the doc. */
export interface ColumnClass {
  readonly category: PersonalDataCategory | null;
  /** What the analyst views show of it. */
  readonly analyst: AnalystAccess;
  readonly note?: string;
  /** Not readable by workforce_reader either (a column privilege of its migration). */
  readonly ownerOnly?: boolean;
  /**
   * The column names another person than the row's (a manager): forget replaces an erased
   * person's name in it in everyone's rows, and never takes it for the row's own person's.
   */
  readonly someoneElse?: boolean;
}

/** A classified table or view. */
export interface TableClass {
  /** Why the whole relation is left out of the analyst schema; absent when it is included. */
  readonly excludedFromAnalysts?: string;
  /** For tables without a CPF: the table with the CPF (and company_cnpj), and the column both share. */
  readonly person?: { readonly table: string; readonly column: string };
  /**
   * For tables without a CPF: a column holding a person's CPF among other text (a key such as
   * `<cpf>|<date-time>`, several CPFs, a record as sent); forget deletes the company's rows
   * where it holds the CPF as a whole number.
   */
  readonly cpfWithin?: string;
  /**
   * What forget does to a linked table's rows: `blank` its omitted columns (default), or
   * `delete` the rows (files: photos and medical certificates have nothing worth keeping).
   */
  readonly erase?: 'blank' | 'delete';
  /**
   * When the sync brings back rows of an erased person that collide on a unique key with the
   * erased rows: `replace` (default) keeps the new rows (what the API says now) under the
   * tombstone; `keep` keeps the erased ones (a history that must not restart at every sync).
   */
  readonly onReturn?: 'replace' | 'keep';
  /** Columns an erased row passes on to the new row that replaces it (`replace` only). */
  readonly preserve?: readonly string[];
  readonly columns: Readonly<Record<string, ColumnClass>>;
}

/** A CPF column: pseudonymised for analysts. */
export const cpf = (note = "the collaborator's CPF"): ColumnClass => ({
  category: 'identifier',
  analyst: 'pseudonym',
  note,
});
const classed =
  (analyst: AnalystAccess) =>
  (category: PersonalDataCategory, note?: string): ColumnClass =>
    note ? { category, analyst, note } : { category, analyst };
/** Personal data analysts do not see. */
export const omitted = classed('omitted');
/** Personal data analysts see as it is. */
export const shown = classed('shown');
/** A column whose name looks personal but whose content is not personal data. */
export const notPersonal = (note: string): ColumnClass => ({ category: null, analyst: 'shown', note });

/** The columns of a row about one collaborator record of a company (spec 2.1 block), as SQL types. */
export const PERSON_COLUMNS = { company_cnpj: 'text', cpf: 'text', collaborator_record: 'text' } as const;

/** The CPF of a per-record row and the record it belongs to. */
export const person = (note?: string) =>
  ({
    cpf: cpf(),
    collaborator_record: shown(
      'employment',
      note ?? 'admission date of the record, telling two records of one CPF apart',
    ),
  }) as const;

/** Where a person works: shown to analysts. */
export const employmentAttributes = {
  occupation: shown('employment'),
  department: shown('employment'),
  team: shown('employment'),
  business_unit: shown('employment'),
} as const;

/** The columns of a stored file (spec 2.6 attachments, spec 2.13 audit photos). */
export const file = (category: 'biometric' | 'health', what: string): Record<string, ColumnClass> => ({
  filename: omitted(category, `file name of ${what}`),
  content: omitted(category, what),
  sha256: omitted(category, `hash of ${what} (recognises a copy of the file)`),
});

/**
 * What is stored of a file the API sends as base64: its size and SHA-256 (lower-case hex) always,
 * its bytes only when STORE_BINARIES is on (faces and medical certificates are personal data).
 */
export function storedFile(base64: string, storeBinaries: boolean) {
  const bytes = Buffer.from(base64, 'base64');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { size_bytes: bytes.length, sha256, content: storeBinaries ? bytes : null };
}
