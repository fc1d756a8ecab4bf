/**
 * src/resources/ — the resource declarations: one file per synced resource, what to read
 * and how to store it.
 *
 * The catalog: every resource by the name `--resources` takes. Adding a GET endpoint means a
 * declaration file here and its line below, its migration in sql/, the emulator's answer, its
 * tests and regenerated docs (docs/adding-a-resource.md walks through it).
 */
import { absenceAttachments } from './absence-attachments.js';
import { absences } from './absences.js';
import { adjustments } from './adjustments.js';
import { auditPhotos } from './audit-photos.js';
import { collaborators } from './collaborators.js';
import { companies } from './companies.js';
import { hourBank } from './hour-bank.js';
import { hourTotals } from './hour-totals.js';
import { inconsistencies } from './inconsistencies.js';
import { lookups } from './lookups.js';
import { punches } from './punches.js';
import { tardiness } from './tardiness.js';
import type { ResourceSummary } from '../warehouse/dictionary.js';
import {
  endpointName,
  type Directory,
  type ReadEndpoint,
  type ResourceDeclaration,
  type TableRole,
} from './declaration.js';

/** Every resource's declaration, by the name job ids, `sync_runs` and metrics use, in backfill order. */
export const CATALOG = Object.freeze({
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

/** One sync resource. */
export type Resource = keyof typeof CATALOG;

/** Every resource name, in the order a backfill runs them. */
export const RESOURCES = Object.keys(CATALOG) as [Resource, ...Resource[]];

/** The catalog as the dictionary of docs/warehouse.md tells it (`npm run docs:warehouse`). */
export const RESOURCE_SUMMARIES: readonly ResourceSummary[] = RESOURCES.map((name) => {
  const d: ResourceDeclaration = CATALOG[name];
  return {
    name,
    read: d.items ? `items of \`${d.items.parent}\`` : d.read,
    endpoints:
      d.read === 'group'
        ? [d.walk.group, d.walk.company]
        : (d.reads as readonly { endpoint: ReadEndpoint }[]).map((r) => endpointName(r.endpoint)),
    tables: Object.values(d.tables),
  };
});

/** The directory of people: declared by one resource. */
export const DIRECTORY: Directory = RESOURCES.map((r) => CATALOG[r].directory).find((d) => d !== undefined)!;

/** The table of each role (see {@link TableRole}), from the declarations. */
export const ROLE_TABLES: Readonly<Record<TableRole, string>> = Object.freeze(
  Object.assign({}, ...RESOURCES.map((r) => CATALOG[r].roles)),
);

export type {
  CallKind,
  CallsResource,
  GroupDeclaration,
  ReadKind,
  ResourceDeclaration,
  WalkDeclaration,
  Window,
} from './declaration.js';
export { collaboratorRecord } from './collaborators.js';
