/**
 * jobs/ — the job processors, one per kind of work; the mechanics live in src/.
 *
 * The processor of every kind of job: the group walk for `companies`, the window sync
 * for every other declared resource (the schedule tick, plan-schedule.ts, runs on its
 * own queue).
 */
import { CATALOG, RESOURCES, type Resource } from '../src/resources/index.js';
import type { JobProcessor } from '../src/runtime/job-context.js';
import type { Processors } from '../src/runtime/runtime.js';
import { planSchedule } from './plan-schedule.js';
import { syncResource } from './sync-resource.js';
import { syncCompanies } from './walk-group.js';

/** Processor by resource: the group walk for group resources, the window sync for the others. */
export const PROCESSORS: Readonly<Record<Resource, JobProcessor>> = Object.freeze(
  Object.fromEntries(RESOURCES.map((r) => [r, CATALOG[r].read === 'group' ? syncCompanies : syncResource])) as Record<Resource, JobProcessor>,
);

/** Every processor a runtime needs: by resource, and the schedule tick. */
export const JOBS: Processors = Object.freeze({ byResource: PROCESSORS, schedule: planSchedule });
