/**
 * Which exit code an error that ends a command gets (docs/operations.md "Exit codes"),
 * decided in one place from the codes of the error and its causes: 2 when something
 * must be fixed, 3 when a service did not answer, 1 for any other failure.
 */
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeOf } from '../src/commands/exit-codes.js';
import { ConfigError } from '../src/config.js';
import { UsageError } from '../src/util/usage-error.js';
import { ServiceUnavailableError } from '../src/probes/services.js';
import { OpsPortInUseError } from '../src/http/server.js';
import { DemoError } from '../src/demo/setup.js';
import { ConnectionAuthError, PermanentSyncError } from '../src/load/errors.js';
import {
  MigrationError,
  PrivacyError,
  WarehouseError,
  WarehouseNotMigratedError,
} from '../src/warehouse/errors.js';

/** An error with a Node or Postgres `code`, as the drivers throw them. */
const driverError = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('exit codes of the errors that end a command', () => {
  it('give 2 for what must be fixed before the command can start', () => {
    for (const err of [
      new UsageError('--from is not a date'),
      new ConfigError('API_MAX_RPS must be a whole number'),
      new WarehouseNotMigratedError('workforce'),
      new MigrationError('warehouse_behind', 'behind'),
      new MigrationError('warehouse_ahead', 'ahead'),
      new PrivacyError('privacy_not_migrated', 'no erasures table'),
      new ConnectionAuthError('default'),
      new OpsPortInUseError(9464),
      new DemoError('schema holds real data', 'demo_schema_in_use'),
    ]) {
      expect({ name: err.name, code: exitCodeOf(err) }).toEqual({ name: err.name, code: EXIT.usage });
    }
  });

  it('give 3 when Postgres, Redis or the API did not answer', () => {
    for (const err of [
      new ServiceUnavailableError('redis', 'Redis is not reachable'),
      new MigrationError('warehouse_unreachable', 'cannot connect', { cause: driverError('ECONNREFUSED') }),
      new PermanentSyncError('api_unreachable', 'cannot reach the API'),
      new PermanentSyncError('api_unavailable', 'the API failed the group walk: 503'),
      new DemoError('the emulator did not answer', 'emulator_unreachable'),
      new WarehouseError('warehouse_unreachable', 'cannot reach the warehouse', {
        cause: driverError('57P03', 'the database system is starting up'),
      }),
      driverError('ECONNRESET'),
    ]) {
      expect({ message: err.message, code: exitCodeOf(err) }).toEqual({
        message: err.message,
        code: EXIT.unavailable,
      });
    }
  });

  it('give 2, not 3, when the server answered but refused the configured database or password', () => {
    const refused = new WarehouseError('warehouse_unreachable', 'cannot reach the warehouse', {
      cause: driverError('28P01', 'password authentication failed for user "punchline"'),
    });
    expect(exitCodeOf(refused)).toBe(EXIT.usage);
    const missing = new ServiceUnavailableError('postgres', 'no database "x"', {
      cause: driverError('3D000'),
    });
    expect(exitCodeOf(missing)).toBe(EXIT.usage);
  });

  it('give 1 for any other failure, a bug included', () => {
    expect(exitCodeOf(new PrivacyError('person_not_found', 'nothing to erase'))).toBe(EXIT.failed);
    expect(exitCodeOf(new MigrationError('migration_failed', 'syntax error'))).toBe(EXIT.failed);
    expect(exitCodeOf(new TypeError('x is undefined'))).toBe(EXIT.failed);
    expect(exitCodeOf('a string')).toBe(EXIT.failed);
    expect(exitCodeOf(undefined)).toBe(EXIT.failed);
  });

  it('stop following a cause chain that loops', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(exitCodeOf(a)).toBe(EXIT.failed);
  });
});
