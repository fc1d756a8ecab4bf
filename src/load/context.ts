/** What a load is given and gives back: the engine's context, one load's request and its result. */
import type pg from 'pg';
import type { ApiClient, CallOptions, Scope } from '../api/client.js';
import type { Logger } from '../logger.js';
import type { CallsResource, ResourceDeclaration } from '../resources/index.js';
import type { TableStats } from '../warehouse/merge.js';
import type { Removal } from '../plan/job-data.js';
import type { DateWindow } from '../plan/windows.js';
import type { EngineMemory } from './memory.js';

/** What the engine works with, besides the resource. */
export interface EngineContext {
  /** The connection's API client (the two calls the engine makes). */
  readonly api: Pick<ApiClient, 'stream' | 'request'>;
  /** The warehouse pool (one client is held for the load's transaction). */
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly logger: Logger;
  /** Most calls a load makes at once (per-day and per-item reads, lookup lists). */
  readonly callsAtOnce: number;
  /** Call options for reading `w` (fewer attempts on multi-day windows, which split instead). */
  call(w?: DateWindow, signal?: AbortSignal): CallOptions;
  /** Whether file contents are stored, not only their hashes (STORE_BINARIES). */
  readonly storeBinaries: boolean;
  /** Key of the CPF pseudonyms (PSEUDONYM_KEY), when configured. */
  readonly pseudonymKey?: string;
  /** The sync's wall clock: which day is today for the company (default the real one; tests pin it). */
  readonly now?: () => Date;
  /** What the runtime's loads remember across jobs (learned spans, warnings said, pending drift). */
  readonly memory: EngineMemory;
}

/** One load: a resource for one company (and window), or the group walk of a connection. */
export interface LoadRequest {
  /** Connection and resource name (bookkeeping). */
  readonly connection: string;
  readonly name: string;
  /** The sync_runs row of the job, when there is one (bookkeeping). */
  readonly runId?: number;
  readonly declaration: ResourceDeclaration;
  /** CNPJ of the company (none for the group walk). */
  readonly company?: string;
  /** spec 1.4: scope parameters of the company (undefined for the token's own company). */
  readonly scope: Scope | undefined;
  /** IANA zone of the company's date-times (spec 1.2). */
  readonly timezone: string;
  readonly window?: DateWindow;
  /** Forced (`backfill --force`): items already stored are fetched too, and the marts are rebuilt from the window's data. */
  readonly force?: boolean;
  /** Removals an earlier attempt refused; applied now only if this answer removes the same. */
  readonly seenRemovals?: readonly Removal[];
}

/** A load of one company's data: what the engine does after the walk. */
export interface CompanyLoad extends LoadRequest {
  readonly declaration: CallsResource;
  readonly company: string;
}

/** What a load wrote: row counts per table, records it could not store (rejected_records), items fetched. */
export interface LoadResult {
  readonly tables: Record<string, TableStats>;
  readonly rejected: number;
  readonly items?: number;
}
