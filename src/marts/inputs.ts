/**
 * The marts' declaration of their inputs: the tables of the resource declarations
 * (src/resources/) they read, by what each is to the marts. The one place in src/marts/
 * that names a resource's table: the statements take the names from here, and
 * test/engine-resource-names.unit.test.ts checks that each is a table a declaration writes.
 */
export const MART_INPUTS = Object.freeze({
  /** The companies, whose time zone the marts keep. */
  company: 'companies',
  /** The directory of people: one row per collaborator record, listed or only seen in period data. */
  person: 'collaborators',
  /** The SCD2 history of the directory's attributes. */
  history: 'collaborator_history',
  /** The day objects of period data: the day grain's coverage, shift and worked time. */
  day: 'work_days',
  /** The punches of those days. */
  punch: 'punches',
  /** Each day's lateness. */
  lateness: 'tardiness',
  /** Each day's hour-bank balance and overtime. */
  balance: 'hour_bank_balances',
  /** Absences, and the people each covers. */
  absence: 'absences',
  absenceMember: 'absence_collaborators',
  /** The source's own inconsistencies (spec 2.10), set beside the labour-law mart; also the resource's name. */
  inconsistency: 'inconsistencies',
} as const);

/** What an input is to the marts. */
export type MartInput = keyof typeof MART_INPUTS;
