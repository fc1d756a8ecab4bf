/** The processor of every resource (one file per resource in this folder). */
import type { JobProcessor } from '../src/sync/job-context.js';
import type { Resource } from '../src/sync/resources.js';
import { syncAbsenceAttachments } from './sync-absence-attachments.js';
import { syncAbsences } from './sync-absences.js';
import { syncAdjustments } from './sync-adjustments.js';
import { syncAuditPhotos } from './sync-audit-photos.js';
import { syncCollaborators } from './sync-collaborators.js';
import { syncCompanies } from './sync-companies.js';
import { syncHourBank } from './sync-hour-bank.js';
import { syncHourTotals } from './sync-hour-totals.js';
import { syncInconsistencies } from './sync-inconsistencies.js';
import { syncLookups } from './sync-lookups.js';
import { syncPunches } from './sync-punches.js';
import { syncTardiness } from './sync-tardiness.js';

/** Processor by resource. */
export const PROCESSORS: Readonly<Record<Resource, JobProcessor>> = Object.freeze({
  companies: syncCompanies,
  lookups: syncLookups,
  collaborators: syncCollaborators,
  punches: syncPunches,
  hour_totals: syncHourTotals,
  tardiness: syncTardiness,
  adjustments: syncAdjustments,
  inconsistencies: syncInconsistencies,
  hour_bank: syncHourBank,
  absences: syncAbsences,
  audit_photos: syncAuditPhotos,
  absence_attachments: syncAbsenceAttachments,
});
