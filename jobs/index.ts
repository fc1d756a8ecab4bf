/**
 * jobs/ — the job processors, one per kind of work; the mechanics live in src/.
 *
 * The processors of the two kinds of jobs: the sync of a resource (the group walk and every window
 * alike, jobs/sync-resource.ts) and the schedule tick (plan-schedule.ts, on its own queue).
 */
import type { Processors } from '../src/runtime/runtime.js';
import { planSchedule } from './plan-schedule.js';
import { syncResource } from './sync-resource.js';

/** Every processor a runtime needs. */
export const JOBS: Processors = Object.freeze({ sync: syncResource, schedule: planSchedule });
