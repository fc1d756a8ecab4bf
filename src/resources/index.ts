/**
 * src/resources/ — the resource declarations: one file per synced resource, what to read
 * and how to store it.
 *
 * The catalog: every resource punchline syncs, by the name `--resources` takes, with its
 * declaration. Adding a GET endpoint means a declaration file here, its migration in
 * sql/, its tests, and a line in the docs (docs/adding-a-resource.md walks through it).
 */
import { absenceAttachments } from './absence-attachments.js';
import { absences } from './absences.js';
import { adjustments } from './adjustments.js';
import { auditPhotos } from './audit-photos.js';
import { collaborators } from './collaborators.js';
import { companies } from './companies.js';
import type { Directory, ResourceDeclaration, TableRole } from './declaration.js';
import { hourBank } from './hour-bank.js';
import { hourTotals } from './hour-totals.js';
import { inconsistencies } from './inconsistencies.js';
import { lookups } from './lookups.js';
import { punches } from './punches.js';
import { tardiness } from './tardiness.js';

/** Every resource name, in the order a backfill runs them. */
export const RESOURCES = [
  'companies',
  'lookups',
  'collaborators',
  'punches',
  'hour_totals',
  'tardiness',
  'adjustments',
  'inconsistencies',
  'hour_bank',
  'absences',
  'audit_photos',
  'absence_attachments',
] as const;

/** One sync resource. */
export type Resource = (typeof RESOURCES)[number];

/** The declaration of every resource. */
export const CATALOG: Readonly<Record<Resource, ResourceDeclaration>> = Object.freeze({
  companies,
  lookups,
  collaborators,
  punches,
  hour_totals: hourTotals,
  tardiness,
  adjustments,
  inconsistencies,
  hour_bank: hourBank,
  absences,
  audit_photos: auditPhotos,
  absence_attachments: absenceAttachments,
});

/** The directory of people: declared by one resource. */
export const DIRECTORY: Directory = RESOURCES.map((r) => CATALOG[r].directory).find((d) => d !== undefined)!;

/** The table of each role (see {@link TableRole}), from the declarations. */
export const ROLE_TABLES: Readonly<Record<TableRole, string>> = Object.freeze(Object.assign({}, ...RESOURCES.map((r) => CATALOG[r].roles)));

export type { ReadKind, ResourceDeclaration, Window } from './declaration.js';
export { collaboratorRecord } from './collaborators.js';
export { companyRows } from './companies.js';
