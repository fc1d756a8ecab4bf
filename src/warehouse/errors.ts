/**
 * Errors of the warehouse, on punchline's error base (`src/util/errors.ts`): a literal
 * `name` and a `code` the CLI and the sync react by. Messages name the problem and the fix.
 */
import { PunchlineError } from '../util/errors.js';

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

/** Codes of {@link PrivacyError}. */
export type PrivacyErrorCode =
  'privacy_view_in_use' | 'privacy_not_migrated' | 'person_not_found' | 'erasure_not_found';

/** Base class of every warehouse error. */
export class WarehouseError<C extends string = string> extends PunchlineError<C> {
  override readonly name: string = 'WarehouseError';
}

/** `punchline migrate` could not bring the schema up to date; nothing of the failing file was applied. */
export class MigrationError extends WarehouseError<MigrationErrorCode> {
  override readonly name = 'MigrationError';
  /** The migration file concerned, when there is one. */
  readonly file?: string;
  constructor(code: MigrationErrorCode, message: string, options?: { cause?: unknown; file?: string }) {
    super(code, message, options);
    this.file = options?.file;
  }
}

/** The analyst views could not be regenerated, the privacy tables are missing, or forget found nobody. */
export class PrivacyError extends WarehouseError<PrivacyErrorCode> {
  override readonly name = 'PrivacyError';
}

/** The schema lacks the tables a command needs: not migrated (docs/operations.md "Exit codes": exit 2). */
export class WarehouseNotMigratedError extends WarehouseError<'warehouse_not_migrated'> {
  override readonly name = 'WarehouseNotMigratedError';
  constructor(schema: string, options?: { cause?: unknown }) {
    super(
      'warehouse_not_migrated',
      `the warehouse schema "${schema}" is not migrated (run punchline migrate first)`,
      options,
    );
  }
}
