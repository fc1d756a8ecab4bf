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

/** Codes of {@link LoadError}. */
export type LoadErrorCode = 'foreign_company' | 'invalid_record' | 'invalid_scope';

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

/**
 * A loader refused its input: the data breaks the spec or the scope it was given. Retrying
 * cannot help (`permanent`), and the load's transaction wrote nothing.
 */
export class LoadError extends WarehouseError {
  override readonly name = 'LoadError';
  declare readonly code: LoadErrorCode;
  /** Always true: the same input fails the same way. */
  readonly permanent = true;
  /** Warehouse table the rejected record was meant for. */
  readonly table: string;
  constructor(code: LoadErrorCode, table: string, message: string) {
    super(code, message);
    this.table = table;
  }
}
