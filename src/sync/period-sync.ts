/**
 * The common recipe of the period endpoints (spec 4.1: totals, points, tardiness,
 * adjustments, inconsistencies): read the job's window adaptively, check every record's
 * company, add collaborators only seen in period data (dismissed ones), and load each
 * part as soon as it is read.
 */
import type { CollaboratorBlock } from '../api/schemas.js';
import { readAdaptive, spanHint } from './adaptive-read.js';
import { assertCompany } from './company-check.js';
import type { JobContext, LoadStats, WindowScope } from './job-context.js';
import { formatWindow, type DateWindow } from './windows.js';

/** The spec 2.1 block of a period record, without the resource's own fields. */
export function collaboratorBlockOf(r: CollaboratorBlock): CollaboratorBlock {
  return {
    national_registry: r.national_registry,
    registration_number: r.registration_number,
    email: r.email,
    name: r.name,
    occupation: r.occupation,
    department: r.department,
    team: r.team,
    business_unit: r.business_unit,
    admission_date: r.admission_date,
    pis: r.pis,
    company: r.company,
  };
}

/** How one period resource is read and loaded. */
export interface PeriodSpec<T extends CollaboratorBlock> {
  /** Endpoint name, for messages. */
  readonly endpoint: string;
  /** Warehouse table the loader writes, for metrics. */
  readonly table: string;
  /** One API call for a window. */
  fetch(w: DateWindow): Promise<T[]>;
  /** Loads one part. */
  load(scope: WindowScope, data: T[]): Promise<LoadStats>;
}

/** Runs the period recipe for the job's company and window. */
export async function syncPeriod<T extends CollaboratorBlock>(ctx: JobContext, spec: PeriodSpec<T>): Promise<void> {
  const company = ctx.company();
  const parts = readAdaptive(ctx.window(), (w) => spec.fetch(w), {
    onSplit: (w, reason) => ctx.logger.info({ window: formatWindow(w), reason }, 'splitting window'),
    hint: spanHint(`${spec.endpoint}:${company}`),
  });
  for await (const part of parts) {
    assertCompany(spec.endpoint, company, part.data, (r) => `collaborator ${r.national_registry}`);
    if (part.data.length > 0) {
      ctx.count('collaborators', await ctx.load.addSeenCollaborators(company, part.data.map(collaboratorBlockOf)));
    }
    ctx.count(spec.table, await spec.load(ctx.windowScope(part.window), part.data));
  }
}
