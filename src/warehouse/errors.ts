/**
 * Errors of the warehouse: a small hierarchy with a literal `name` and a `code`, so the
 * CLI and the sync can react by code. Messages name the problem and the fix.
 */

/** Codes of {@link MigrationError}. */
export type MigrationErrorCode =
  | 'migration_changed'
  | 'migration_missing'
  | 'migration_invalid_name'
  | 'migration_out_of_order'
  | 'migration_dir'
  | 'migration_failed'
  | 'migration_lock_timeout'
  | 'warehouse_unreachable'
  | 'warehouse_behind'
  | 'warehouse_ahead';

/** Base class of every warehouse error. */
export class WarehouseError extends Error {
  override readonly name: string = 'WarehouseError';
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** `punchline migrate` could not bring the schema up to date; nothing of the failing file was applied. */
export class MigrationError extends WarehouseError {
  override readonly name = 'MigrationError';
  declare readonly code: MigrationErrorCode;
  /** The migration file concerned, when there is one. */
  readonly file?: string;
  constructor(code: MigrationErrorCode, message: string, options?: { cause?: unknown; file?: string }) {
    super(code, message, options);
    this.file = options?.file;
  }
}

/** Codes of {@link PrivacyError}. */
export type PrivacyErrorCode =
  | 'privacy_view_in_use'
  | 'privacy_not_migrated'
  | 'person_not_found'
  | 'erasure_not_found';

/**
 * The analyst views could not be regenerated (other objects depend on one), the schema
 * lacks the privacy tables, or forget / forget --lift found nobody.
 */
export class PrivacyError extends WarehouseError {
  override readonly name = 'PrivacyError';
  declare readonly code: PrivacyErrorCode;
  constructor(code: PrivacyErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * The warehouse schema lacks the tables a command needs: `punchline migrate` has not run
 * on it (docs/operations.md "Exit codes": the command cannot start, exit 2).
 */
export class WarehouseNotMigratedError extends WarehouseError {
  override readonly name = 'WarehouseNotMigratedError';
  constructor(schema: string, options?: { cause?: unknown }) {
    super('warehouse_not_migrated', `the warehouse schema "${schema}" is not migrated (run punchline migrate first)`, options);
  }
}
