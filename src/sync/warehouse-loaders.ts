/**
 * The real warehouse behind the sync: a pool on `DATABASE_URL`/`WAREHOUSE_SCHEMA` and
 * the loaders of src/warehouse bound to it (docs/contracts.md "Warehouse").
 */
import type { Config } from '../config.js';
import {
  addSeenCollaborators,
  createWarehouse,
  loadAbsenceAttachments,
  loadAbsences,
  loadAdjustments,
  loadAuditPhoto,
  loadCollaborators,
  loadCompanies,
  loadHourBank,
  loadHourTotals,
  loadInconsistencies,
  loadLookups,
  loadPunches,
  loadTardiness,
  type LookupKind,
  type LookupRecord,
  type Warehouse,
} from '../warehouse/index.js';
import type { SyncLoaders } from './job-context.js';
import { withLoaderTiming } from './loader-timing.js';
import type { SyncWarehouse } from './runtime.js';

/** Binds the loaders to `w` (attachments and photos keep their bytes when `storeBinaries`). */
export function bindLoaders(w: Pick<Warehouse, 'pool' | 'schema'>, storeBinaries: boolean): SyncLoaders {
  return {
    loadCompanies: (companies, group) => loadCompanies(w, companies, group),
    // The lookup table names of job-context.ts are the warehouse's LOOKUP_KINDS.
    loadLookups: (company, kind, records) =>
      loadLookups(w, company, kind as LookupKind, records as readonly LookupRecord<LookupKind>[]),
    loadCollaborators: (company, list) => loadCollaborators(w, company, list),
    addSeenCollaborators: (company, blocks) => addSeenCollaborators(w, company, blocks),
    loadPunches: (scope, data) => loadPunches(w, scope, data),
    loadHourTotals: (scope, data) => loadHourTotals(w, scope, data),
    loadTardiness: (scope, data) => loadTardiness(w, scope, data),
    loadAdjustments: (scope, data) => loadAdjustments(w, scope, data),
    loadInconsistencies: (scope, data) => loadInconsistencies(w, scope, data),
    loadHourBank: (day, data) => loadHourBank(w, { companyCnpj: day.companyCnpj, date: day.date }, data),
    loadAbsences: (scope, data) => loadAbsences(w, scope, data),
    loadAbsenceAttachments: (_company, absenceId, list) => loadAbsenceAttachments(w, absenceId, list, storeBinaries),
    loadAuditPhoto: (_company, photo) => loadAuditPhoto(w, photo, storeBinaries),
  };
}

/** Opens the configured warehouse for the sync. */
export async function openSyncWarehouse(
  config: Pick<Config, 'databaseUrl' | 'warehouseSchema' | 'storeBinaries' | 'workerConcurrency'>,
): Promise<SyncWarehouse> {
  const w = createWarehouse(config.databaseUrl, config.warehouseSchema, {
    max: Math.max(4, config.workerConcurrency * 2 + 2),
    applicationName: 'punchline-sync',
  });
  return {
    db: w.pool,
    schema: w.schema,
    load: withLoaderTiming(bindLoaders(w, config.storeBinaries)),
    close: () => w.close(),
  };
}
