/**
 * What a job processor (jobs/*.ts) receives: its validated data, the connection's API
 * client, the warehouse loaders bound to the warehouse, and a few helpers. Processors
 * read like recipes — plan, extract, load — and the mechanics stay in src/sync.
 */
import type { ApiClient, CallOptions, Scope } from '../api/client.js';
import type {
  Absence,
  AbsenceAttachment,
  AuditPhoto,
  CollaboratorAdjustments,
  CollaboratorBlock,
  CollaboratorInconsistencies,
  CollaboratorPoints,
  CollaboratorTardiness,
  CollaboratorTotalHours,
  Company,
  EconomicGroupEntry,
  OvertimeBalance,
} from '../api/schemas.js';
import type { Connection } from '../config.js';
import type { Logger } from '../logger.js';
import type { SyncJobData } from './job-data.js';
import type { Resource } from './resources.js';
import type { Queryable } from './run-records.js';
import type { DateWindow } from './windows.js';

/** What each loader reports (docs/contracts.md `LoadStats`). */
export interface LoadStats {
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** The same counts per table, when a load writes more than one. */
  byTable?: Record<string, LoadStats>;
}

/** A window of one company (docs/contracts.md `WindowScope`). */
export interface WindowScope {
  companyCnpj: string;
  from: string;
  to: string;
  timezone: string;
}

/** The lookup lists of spec 2.4 the sync reads, by warehouse table. */
export { LOOKUP_KINDS as LOOKUP_TABLES, type LookupKind as LookupTable } from '../warehouse/lookup-tables.js';
import type { LookupKind as LookupTable } from '../warehouse/lookup-tables.js';

/** The warehouse loaders of docs/contracts.md, bound to one warehouse. */
export interface SyncLoaders {
  loadCompanies(companies: Company[], group: EconomicGroupEntry[]): Promise<LoadStats>;
  loadLookups(companyCnpj: string, kind: LookupTable, records: readonly object[]): Promise<LoadStats>;
  loadCollaborators(companyCnpj: string, list: CollaboratorBlock[]): Promise<LoadStats>;
  addSeenCollaborators(companyCnpj: string, blocks: CollaboratorBlock[]): Promise<LoadStats>;
  loadPunches(scope: WindowScope, data: CollaboratorPoints[]): Promise<LoadStats>;
  loadHourTotals(scope: WindowScope, data: CollaboratorTotalHours[]): Promise<LoadStats>;
  loadTardiness(scope: WindowScope, data: CollaboratorTardiness[]): Promise<LoadStats>;
  loadAdjustments(scope: WindowScope, data: CollaboratorAdjustments[]): Promise<LoadStats>;
  loadInconsistencies(scope: WindowScope, data: CollaboratorInconsistencies[]): Promise<LoadStats>;
  loadHourBank(day: { companyCnpj: string; date: string; timezone: string }, data: OvertimeBalance[]): Promise<LoadStats>;
  loadAbsences(scope: WindowScope, data: Absence[]): Promise<LoadStats>;
  loadAbsenceAttachments(companyCnpj: string, absenceId: number, list: AbsenceAttachment[]): Promise<LoadStats>;
  loadAuditPhoto(companyCnpj: string, photo: AuditPhoto): Promise<LoadStats>;
}

/** Everything a processor needs. */
export interface JobContext {
  /** Validated job data. */
  readonly data: SyncJobData;
  /** The connection of the job (with its token, which never leaves the process). */
  readonly connection: Connection;
  /** The connection's API client (shared request budget, metrics hooks). */
  readonly api: ApiClient;
  /** Warehouse loaders. */
  readonly load: SyncLoaders;
  /** Warehouse pool for the few reads a job makes (follow-up item lists). */
  readonly db: Queryable;
  /** Warehouse schema. */
  readonly schema: string;
  /** Job logger (bound to job id and resource). */
  readonly logger: Logger;
  /** Aborted when the worker shuts down. */
  readonly signal?: AbortSignal;
  /** Most parallel calls a job makes itself (per-day and per-item fan-out). */
  readonly fanOut: number;
  /** spec 1.4: scope parameters of the job's company (undefined for the token's own company). */
  scope(): Scope | undefined;
  /** The job's company CNPJ (throws for group-level jobs). */
  company(): string;
  /** The job's window (throws for jobs without one). */
  window(): DateWindow;
  /** The loaders' window scope of `w` for the job's company. */
  windowScope(w: DateWindow): WindowScope;
  /** Call options for reading `w` (fewer attempts on multi-day windows, which split instead). */
  call(w?: DateWindow): CallOptions;
  /** Adds a loader's stats (for `sync_runs` and metrics). */
  count(table: string, stats: LoadStats): void;
  /** Queues the follow-up resource's job for `w` (e.g. attachments of the absences just loaded). */
  queueFollowUp(resource: Resource, w: DateWindow): Promise<void>;
}

/** A job processor: one per resource, in jobs/. */
export type JobProcessor = (ctx: JobContext) => Promise<void>;
