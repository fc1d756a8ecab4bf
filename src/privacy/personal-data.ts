/**
 * src/privacy/ — personal data: its classification, pseudonyms, erasures (warehouse and
 * Redis), and the analyst views and erasure functions derived from them.
 *
 * Which warehouse columns hold personal data (LGPD), of what kind, and what each reader
 * role sees, as data from which the analyst views, `punchline forget` and docs/privacy.md
 * derive: each resource declaration classifies its own tables, this file the rest.
 * `workforce_reader` sees every column (but `erasures.cpf`); `workforce_analyst` as the
 * `analyst` access says. Unlisted columns are judged by {@link classifyColumn}, so what a
 * later migration adds is covered, on the safe side, before anyone classifies it.
 */
import { CATALOG, RESOURCES } from '../resources/index.js';
import {
  cpf,
  employmentAttributes,
  notPersonal,
  omitted,
  person,
  shown,
  type ColumnClass,
  type TableClass,
} from '../resources/column-classes.js';

/** Outcomes of the reconciliation checks (quality_checks and its view quality_status). */
const qualityFindings: TableClass = {
  columns: {
    check_name: notPersonal('which check'),
    cpf: cpf('the collaborator a finding is about; null for other scopes'),
    detail: notPersonal(
      'what a finding is about, in words: figures, dates and table names, never a personal value',
    ),
  },
};

/** Every relation with personal or personal-looking columns: the declarations' tables, and here the rest. */
export const PERSONAL_DATA: Readonly<Record<string, TableClass>> = {
  ...Object.assign({}, ...RESOURCES.map((r) => CATALOG[r].privacy)),
  schema_migrations: {
    excludedFromAnalysts: 'bookkeeping of punchline migrate',
    columns: { name: notPersonal('migration file name') },
  },
  sync_runs: {
    columns: { error: omitted('free_text', 'an error message may quote an API record') },
  },
  rejected_records: {
    excludedFromAnalysts:
      'records as the API sent them, names and all (operators read them to fix the source)',
    cpfWithin: 'record',
    erase: 'delete',
    columns: {
      cpf: cpf('the CPF of the element the record was taken from, when it named one'),
      reason: notPersonal('the field and the problem, without its value'),
      record: omitted('free_text', 'the rejected record exactly as sent: may hold any personal field'),
    },
  },
  window_loads: { columns: { table_name: notPersonal('a warehouse table name') } },
  pending_changes: {
    columns: {
      connection: notPersonal('a connection name'),
      resource: notPersonal('a resource name'),
      changes: notPersonal("names of the marts' inputs"),
    },
  },
  mart_refreshes: { columns: { changes: notPersonal("names of the marts' inputs") } },
  quality_checks: qualityFindings,
  quality_status: qualityFindings,
  push_receipts: {
    cpfWithin: 'row_key',
    erase: 'delete',
    columns: {
      row_key: omitted(
        'identifier',
        'identity of the pushed entity: the CPF of the person it was pushed for (several for a shared absence), or a registration number',
      ),
      source_file: notPersonal('path of the file a push read'),
    },
  },
  cpf_pseudonyms: {
    excludedFromAnalysts: 'the link between CPFs and pseudonyms',
    columns: {
      cpf: { category: 'identifier', analyst: 'omitted', note: "the collaborator's CPF" },
      pseudonym: {
        category: 'identifier',
        analyst: 'omitted',
        note: 'pseudonym of the CPF (analysts see it in the views)',
      },
    },
  },
  pseudonym_keys: {
    excludedFromAnalysts:
      'fingerprints of the pseudonym keys: with one, a weak key could be guessed offline and every pseudonym reversed',
    columns: {
      key_id: {
        category: 'identifier',
        analyst: 'omitted',
        note: 'fingerprint of a pseudonym key (a keyed hash)',
      },
    },
  },
  erasures: {
    excludedFromAnalysts: 'register of erasures',
    columns: {
      cpf: { category: 'identifier', analyst: 'omitted', ownerOnly: true, note: "the erased person's CPF" },
      names: {
        category: 'name',
        analyst: 'omitted',
        ownerOnly: true,
        note: "the erased person's names, replaced wherever they name the person",
      },
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
      medical_certificate_time_hours: shown(
        'health',
        'hours covered by medical certificates, without diagnosis',
      ),
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
  company_calendar: { columns: { holiday_name: notPersonal('name of a holiday') } },
  declared_holidays: {
    columns: {
      name: notPersonal('name of a holiday or day off'),
      zip_prefix: notPersonal("leading digits of a city's postal codes"),
    },
  },
  workforce_events: {
    columns: {
      ...person(),
      department: shown('employment', 'department at the time'),
      from_department: shown('employment', 'department before a move'),
      to_department: shown('employment', 'department after a move'),
      leaving_kind: shown('employment', 'voluntary or involuntary leave'),
    },
  },
  absence_days: { columns: { ...person() } },
  absence_hours: { columns: { ...person() } },
  bradford_factor: { columns: { ...person() } },
  monthly_absenteeism: { columns: { department: shown('employment', 'a department, counted; no person') } },
  clt_daily: {
    columns: {
      ...person(),
      holiday_name: notPersonal('name of the holiday worked on'),
    },
  },
  clt_people_90d: {
    columns: { ...person(), department: shown('employment', 'department of the latest day') },
  },
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
const PERSONAL_WORDS = new Set(
  `cpf pis rg cnh ctps caepf name names nome email mail phone telephone mobile address street neighborhood
  complement zip cep lat latitude lng lon longitude geo geolocation location photo image picture face selfie
  biometric content base64 attachment file filename cid health medical diagnosis professional register
  registration birth birthday gender sex salary reason observation justification details description comment
  comments note notes by error payload raw record body pseudonym`.split(/\s+/),
);
/** Types that can hold anything (a raw record, a file): never shown unless classified. */
const OPAQUE_TYPES = new Set(['bytea', 'json', 'jsonb', '_bytea', '_json', '_jsonb']);

/** True when a column nobody classified may hold personal data, by its name or type. */
export function looksPersonal(column: string, udtType: string): boolean {
  return OPAQUE_TYPES.has(udtType) || column.split('_').some((w) => PERSONAL_WORDS.has(w));
}

/** A column's class as the analyst views and forget apply it: `classified` here, or `presumed`. */
export interface EffectiveClass extends ColumnClass {
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
    return {
      category: null,
      analyst: 'omitted',
      note: 'presumed personal: not classified yet',
      source: 'presumed',
    };
  }
  return { category: null, analyst: 'shown', source: 'presumed' };
}

/**
 * The columns of `table` (with a CPF) holding its row's person's name (a name, not
 * `someoneElse`): forget learns an erased person's names from them, and leaves them
 * alone when it replaces those names elsewhere (a namesake keeps their own name).
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
