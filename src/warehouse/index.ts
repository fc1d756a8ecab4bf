/**
 * The warehouse (DESIGN.md §5, docs/contracts.md): connection, migrations, types and
 * the set-based loaders, one per resource.
 */
export { createWarehouse, quoteIdent, type Warehouse, type WarehouseHandle, type WarehouseOptions } from './db.js';
export { migrate, type MigrateOptions, type MigrateResult } from './migrate.js';
export { LoadError, MigrationError, WarehouseError } from './errors.js';
export type { Database, RelationName, Row } from './types.js';
export type { LoadStats } from './load-stats.js';
export type { WindowScope } from './scope.js';
export { loadCompanies } from './load-companies.js';
export { LOOKUP_KINDS, isLookupKind, loadLookups, type LookupKind, type LookupRecord } from './load-lookups.js';
export { addSeenCollaborators, loadCollaborators, TRACKED_ATTRIBUTES } from './load-collaborators.js';
export { loadPunches } from './load-punches.js';
export { loadHourTotals } from './load-hour-totals.js';
export { loadTardiness } from './load-tardiness.js';
export { loadAdjustments } from './load-adjustments.js';
export { loadInconsistencies } from './load-inconsistencies.js';
export { loadHourBank, type DayScope } from './load-hour-bank.js';
export { loadAbsences } from './load-absences.js';
export { loadAbsenceAttachments } from './load-absence-attachments.js';
export { loadAuditPhoto } from './load-audit-photo.js';
export { applyErasures, forgetPerson, liftErasure, upholdPrivacy, type PrivacyUpkeep } from './erasures.js';
export { ensurePseudonyms, pseudonymOf } from './pseudonyms.js';
export { PERSONAL_DATA, classifyColumn } from './personal-data.js';
export { PrivacyError } from './errors.js';
