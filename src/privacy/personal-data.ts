/**
 * src/privacy/ — personal data: its classification, pseudonyms, erasures (warehouse and
 * Redis), and the analyst views and erasure functions derived from them.
 *
 * Which warehouse columns hold personal data (LGPD), of what kind, and what each reader
 * role sees of them — as data, so that the analyst views, `punchline forget` and
 * docs/privacy.md are all derived from this one place (see docs/privacy.md).
 *
 * `workforce_reader` sees every column (but `erasures.cpf`); `workforce_analyst` sees a
 * column as the {@link AnalystAccess} says. Columns not listed here are judged by
 * {@link classifyColumn}: a CPF column is pseudonymised, a column that looks personal by
 * its name or type is left out, any other is shown — so a table or column added by a
 * later migration is covered before anyone classifies it, on the safe side.
 */
import { LOOKUP_KINDS } from '../warehouse/lookup-tables.js';

/** Kinds of personal data, as the privacy doc groups them. */
export const PERSONAL_DATA_CATEGORIES = [
  'identifier',
  'name',
  'contact',
  'location',
  'biometric',
  'health',
  'employment',
  'free_text',
] as const;
/** A kind of personal data. */
export type PersonalDataCategory = (typeof PERSONAL_DATA_CATEGORIES)[number];

/** What `workforce_analyst` sees of a column: its value, a pseudonym of it, or nothing. */
export type AnalystAccess = 'shown' | 'pseudonym' | 'omitted';

/** A classified column. `category: null` records a column reviewed and found not personal. */
export interface ColumnClass {
  /** Kind of personal data, or null when the column is not personal data. */
  readonly category: PersonalDataCategory | null;
  /** What the analyst views show of it. */
  readonly analyst: AnalystAccess;
  /** Whose data it is or why it is classified so, for the doc. */
  readonly note?: string;
  /** Not readable by workforce_reader either (a column privilege of its migration). */
  readonly ownerOnly?: boolean;
  /**
   * The column names another person than the row's (the manager who adjusted or decided):
   * forget replaces an erased person's name in it in everyone's rows, and never takes it
   * for the name of the row's own person.
   */
  readonly someoneElse?: boolean;
}

/** How forget finds a table's rows about a person when the table has no CPF column. */
export interface PersonLink {
  /** Table that has the CPF (and company_cnpj). */
  readonly table: string;
  /** Column shared by both tables. */
  readonly column: string;
}

/** A classified table or view. */
export interface TableClass {
  /** Why the whole relation is left out of the analyst schema; absent when it is included. */
  readonly excludedFromAnalysts?: string;
  /** Rows about a person found through another table (tables without a CPF). */
  readonly person?: PersonLink;
  /**
   * A column that holds the CPF of the person a row is about, among other text (a key
   * such as `<cpf>|<date-time>`, several CPFs, a record as the API sent it): forget deletes
   * the rows of the company where its text holds the CPF as a whole number (tables
   * without a CPF column).
   */
  readonly cpfWithin?: string;
  /**
   * What forget does to a linked table's rows: `blank` its omitted columns (default), or
   * `delete` the rows (files: photos and medical certificates have nothing worth keeping).
   */
  readonly erase?: 'blank' | 'delete';
  /**
   * When the sync brings back rows of an erased person that collide on a unique key with
   * the person's erased rows: `replace` (default) keeps the new rows (they are what the
   * API says now) under the tombstone; `keep` keeps the erased rows and drops the new ones
   * (a history that must not restart at every sync).
   */
  readonly onReturn?: 'replace' | 'keep';
  /** Columns an erased row passes on to the new row that replaces it (`replace` only). */
  readonly preserve?: readonly string[];
  /** The classified columns. */
  readonly columns: Readonly<Record<string, ColumnClass>>;
}

const cpf = (note = "the collaborator's CPF"): ColumnClass => ({ category: 'identifier', analyst: 'pseudonym', note });
const omitted = (category: PersonalDataCategory, note?: string): ColumnClass => ({
  category,
  analyst: 'omitted',
  ...(note ? { note } : {}),
});
const shown = (category: PersonalDataCategory, note?: string): ColumnClass => ({
  category,
  analyst: 'shown',
  ...(note ? { note } : {}),
});
/** A column whose name looks personal but whose content is not personal data. */
const notPersonal = (note: string): ColumnClass => ({ category: null, analyst: 'shown', note });

/** The CPF of a per-record row and the record it belongs to. */
const person = (note?: string) =>
  ({
    cpf: cpf(),
    collaborator_record: shown('employment', note ?? 'admission date of the record, telling two records of one CPF apart'),
  }) as const;

const employmentAttributes = {
  occupation: shown('employment'),
  department: shown('employment'),
  team: shown('employment'),
  business_unit: shown('employment'),
} as const;

const collaboratorAttributes = {
  registration_number: omitted('identifier', 'registration (matrícula) number'),
  email: omitted('contact'),
  name: omitted('name'),
  ...employmentAttributes,
} as const;

/** Lookup lists whose label is `name` (the others' is `description`), spec 2.4. */
const NAMED_LOOKUPS: ReadonlySet<string> = new Set(['cost_centers', 'units', 'digital_fences', 'dismissal_types']);

const lookup = (label: 'description' | 'name'): TableClass => ({
  columns: { [label]: notPersonal('label of a lookup record') },
});

const file = (category: 'biometric' | 'health', what: string): Record<string, ColumnClass> => ({
  filename: omitted(category, `file name of ${what}`),
  content: omitted(category, what),
  sha256: omitted(category, `hash of ${what} (recognises a copy of the file)`),
});

/** Outcomes of the reconciliation checks (quality_checks and its view quality_status). */
const qualityFindings: TableClass = {
  columns: {
    check_name: notPersonal('which check'),
    cpf: cpf('the collaborator a finding is about; null for other scopes'),
    detail: notPersonal('what a finding is about, in words: figures, dates and table names, never a personal value'),
  },
};

/** Every warehouse relation holding personal data, or columns that look personal, by name. */
export const PERSONAL_DATA: Readonly<Record<string, TableClass>> = {
  schema_migrations: {
    excludedFromAnalysts: 'bookkeeping of punchline migrate',
    columns: { name: notPersonal('migration file name') },
  },
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
  collaborator_history: {
    onReturn: 'keep',
    columns: { ...person(), ...collaboratorAttributes },
  },
  punches: {
    columns: {
      ...person('admission date of the record the punch was listed under'),
      adjustment_reason: omitted('free_text', 'why the punch was adjusted'),
      adjusted_by: { ...omitted('name', 'name of the manager who adjusted the punch'), someoneElse: true },
      has_audit_photo: notPersonal('whether the punch has a photo, not the photo'),
      latitude: omitted('location', 'where the punch was made'),
      longitude: omitted('location', 'where the punch was made'),
      address: omitted('location', 'where the punch was made'),
    },
  },
  work_days: {
    columns: { ...person() },
  },
  audit_photos: {
    excludedFromAnalysts: 'photos of faces (biometric data)',
    person: { table: 'punches', column: 'point_id' },
    erase: 'delete',
    columns: file('biometric', 'the photo of the face taken at the punch'),
  },
  hour_totals: {
    columns: {
      ...person(),
      medical_certificate_time_seconds: shown('health', 'hours covered by medical certificates, without diagnosis'),
    },
  },
  tardiness: { columns: { ...person() } },
  adjustment_requests: {
    columns: {
      ...person(),
      collaborator_reason: omitted('free_text', "the collaborator's justification"),
      manager_observation: omitted('free_text', "the manager's observation"),
      approved_by: { ...omitted('name', 'name of the manager who decided'), someoneElse: true },
    },
  },
  inconsistencies: {
    columns: { ...person(), justification: omitted('free_text', "the collaborator's justification") },
  },
  hour_bank_balances: {
    columns: { ...person() },
  },
  absences: {
    person: { table: 'absence_collaborators', column: 'absence_id' },
    columns: {
      description: omitted('free_text', 'typed by a person; may name an illness'),
      details: omitted('free_text', 'typed by a person; may name an illness'),
      cr_register: omitted('health', "the health professional's council registration"),
      professional_name: omitted('health', "the health professional's name"),
      health_unit: omitted('health', 'where the person was treated'),
      cid_description: omitted('health', 'the diagnosis'),
      cid: omitted('health', 'diagnosis codes (CID/ICD)'),
      has_attachment: notPersonal('whether the absence has attachments, not the files'),
    },
  },
  absence_collaborators: { columns: { ...person() } },
  absence_attachments: {
    excludedFromAnalysts: 'medical certificates and other attached documents (health data)',
    person: { table: 'absence_collaborators', column: 'absence_id' },
    erase: 'delete',
    columns: file('health', 'the attached document, often a medical certificate'),
  },
  ...Object.fromEntries(LOOKUP_KINDS.map((k) => [k, lookup(NAMED_LOOKUPS.has(k) ? 'name' : 'description')])),
  sync_runs: {
    columns: { error: omitted('free_text', 'an error message may quote an API record') },
  },
  rejected_records: {
    excludedFromAnalysts: 'records as the API sent them, names and all (operators read them to fix the source)',
    cpfWithin: 'record',
    erase: 'delete',
    columns: {
      cpf: cpf('the CPF of the element the record was taken from, when it named one'),
      reason: notPersonal('the field and the problem, without its value'),
      record: omitted('free_text', 'the rejected record exactly as sent: may hold any personal field'),
    },
  },
  window_loads: { columns: { table_name: notPersonal('a warehouse table name') } },
  quality_checks: qualityFindings,
  quality_status: qualityFindings,
  push_receipts: {
    cpfWithin: 'row_key',
    erase: 'delete',
    columns: {
      row_key: omitted('identifier', 'identity of the pushed entity: the CPF of the person it was pushed for (several for a shared absence), or a registration number'),
      source_file: notPersonal('path of the file a push read'),
    },
  },
  cpf_pseudonyms: {
    excludedFromAnalysts: 'the link between CPFs and pseudonyms',
    columns: {
      cpf: { category: 'identifier', analyst: 'omitted', note: "the collaborator's CPF" },
      pseudonym: { category: 'identifier', analyst: 'omitted', note: 'pseudonym of the CPF (analysts see it in the views)' },
    },
  },
  erasures: {
    excludedFromAnalysts: 'register of erasures',
    columns: {
      cpf: { category: 'identifier', analyst: 'omitted', ownerOnly: true, note: "the erased person's CPF" },
      names: { category: 'name', analyst: 'omitted', ownerOnly: true, note: "the erased person's names, replaced wherever they name the person" },
      erased_by: omitted('name', 'the operator who ran forget'),
      note: omitted('free_text', 'typed by the operator'),
      lifted_by: omitted('name', 'the operator who lifted the erasure'),
    },
  },
  daily_attendance: {
    columns: {
      ...person(),
      collaborator_name: omitted('name', 'current name of the collaborator'),
      department: shown('employment'),
    },
  },
  monthly_hours: {
    columns: {
      ...person(),
      medical_certificate_time_hours: shown('health', 'hours covered by medical certificates, without diagnosis'),
      department: shown('employment', 'department at the time'),
    },
  },
  pushed_dismissals: {
    columns: { cpf: cpf(), registration_number: omitted('identifier', 'registration (matrícula) number') },
  },
  employments: {
    preserve: ['first_seen_at', 'first_listed_at', 'first_data_on'],
    columns: {
      ...person(),
      admission_date: shown('employment'),
      registration_number: omitted('identifier', 'registration (matrícula) number'),
      left_on: shown('employment', 'last day of the employment'),
    },
  },
  employee_daily: { columns: { ...person(), ...employmentAttributes } },
  monthly_headcount: { columns: { department: shown('employment', 'a department, counted; no person') } },
  absence_days: { columns: { ...person() } },
  calendar: {
    columns: {
      month_name: notPersonal('name of a month'),
      day_name: notPersonal('name of a weekday'),
      holiday_name: notPersonal('name of a national holiday'),
    },
  },
};

/** Column names that say "CPF": pseudonymised for analysts wherever they appear. */
const CPF_NAME_RE = /(^|_)cpf$/;
/** Name parts that suggest personal data, for columns nobody classified yet. */
const PERSONAL_WORDS = new Set([
  'cpf', 'pis', 'rg', 'cnh', 'ctps', 'caepf', 'name', 'names', 'nome', 'email', 'mail', 'phone', 'telephone',
  'mobile', 'address', 'street', 'neighborhood', 'complement', 'zip', 'cep', 'lat', 'latitude', 'lng', 'lon',
  'longitude', 'geo', 'geolocation', 'location', 'photo', 'image', 'picture', 'face', 'selfie', 'biometric',
  'content', 'base64', 'attachment', 'file', 'filename', 'cid', 'health', 'medical', 'diagnosis', 'professional',
  'register', 'registration', 'birth', 'birthday', 'gender', 'sex', 'salary', 'reason', 'observation',
  'justification', 'details', 'description', 'comment', 'comments', 'note', 'notes', 'by', 'error', 'payload',
  'raw', 'record', 'body', 'pseudonym',
]);
/** Types that can hold anything (a raw record, a file): never shown unless classified. */
const OPAQUE_TYPES = new Set(['bytea', 'json', 'jsonb', '_bytea', '_json', '_jsonb']);

/** True when a column nobody classified may hold personal data, by its name or type. */
export function looksPersonal(column: string, udtType: string): boolean {
  return OPAQUE_TYPES.has(udtType) || column.split('_').some((w) => PERSONAL_WORDS.has(w));
}

/** A column's class as the analyst views and forget apply it. */
export interface EffectiveClass extends ColumnClass {
  /** `classified` in {@link PERSONAL_DATA}, or `presumed` by the fallback rule. */
  readonly source: 'classified' | 'presumed';
}

/**
 * The class of any column of the warehouse: as classified, else presumed — a CPF column
 * is pseudonymised, a column that {@link looksPersonal} is omitted, any other is shown.
 */
export function classifyColumn(table: string, column: string, udtType: string): EffectiveClass {
  const known = PERSONAL_DATA[table]?.columns[column];
  if (known) return { ...known, source: 'classified' };
  if (CPF_NAME_RE.test(column)) return { ...cpf('presumed: the name says CPF'), source: 'presumed' };
  if (looksPersonal(column, udtType)) {
    return { category: null, analyst: 'omitted', note: 'presumed personal: not classified yet', source: 'presumed' };
  }
  return { category: null, analyst: 'shown', source: 'presumed' };
}

/**
 * The columns of `table` that hold the name of the row's own person: classified as a
 * name, not {@link ColumnClass.someoneElse}, in a table whose rows are a person's (a CPF
 * column). Forget learns an erased person's names from them, and leaves them alone when
 * it replaces those names elsewhere (a namesake keeps their own name).
 */
export function ownNameColumns(table: string, columns: readonly string[]): string[] {
  if (!columns.includes('cpf')) return [];
  return columns.filter((c) => {
    const known = PERSONAL_DATA[table]?.columns[c];
    return known?.category === 'name' && known.someoneElse !== true;
  });
}

/** The analyst-view name of a pseudonymised column: `cpf` → `cpf_pseudonym`. */
export function pseudonymColumnName(column: string): string {
  return `${column}_pseudonym`;
}
