/**
 * Runs once per `vitest run`, before any test file: checks that Postgres and Redis are
 * there (one line naming what to start when not), creates an empty database for this
 * run and hands its URL to the test files (`inject('testDatabaseUrl')`, see
 * isolation.ts); drops it when the run ends. Nothing has to be prepared by hand, and
 * runs of several engineers on one server never share a database.
 */
import type { TestProject } from 'vitest/node';
import { assertPostgresReachable, assertRedisReachable } from '../../src/ops/services.js';
import { LOCAL_POSTGRES_URL, createScratchDatabase } from '../../src/warehouse/scratch-database.js';
import { redactUrl } from '../../src/util/database-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Database of this test run (or TEST_DATABASE_URL). */
    testDatabaseUrl: string;
    /** Redis of this test run (TEST_REDIS_URL or the local one). */
    testRedisUrl: string;
  }
}

const START_POSTGRES =
  'start it (`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`; Debian: apt-get install postgresql) or set TEST_POSTGRES_URL';
const START_REDIS =
  'start it (`redis-server --daemonize yes --save "" --appendonly no`; Debian: apt-get install redis-server) or set TEST_REDIS_URL';

/** An error vitest prints as the one line that says what is missing. */
function setupError(message: string): Error {
  const err = new Error(message);
  err.stack = `Error: ${message}`;
  return err;
}

/** Creates this run's database (unless TEST_DATABASE_URL names one) and returns the teardown that drops it. */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const redisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  await assertRedisReachable(redisUrl).catch(() => {
    throw setupError(`tests need Redis, which is not reachable at ${redactUrl(redisUrl)}: ${START_REDIS}`);
  });
  project.provide('testRedisUrl', redisUrl);

  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    await assertPostgresReachable(given).catch((err: Error) => {
      throw setupError(`TEST_DATABASE_URL cannot be used: ${err.message}`);
    });
    project.provide('testDatabaseUrl', given);
    return undefined;
  }
  const server = process.env.TEST_POSTGRES_URL || LOCAL_POSTGRES_URL;
  const database = await createScratchDatabase(server, 'test').catch((err: Error) => {
    throw setupError(
      err.message.startsWith('Postgres is not reachable')
        ? `tests need Postgres: ${err.message}; ${START_POSTGRES}`
        : `tests cannot create their database on ${redactUrl(server)} (${err.message}); give the role CREATEDB or set TEST_DATABASE_URL to an existing database`,
    );
  });
  project.provide('testDatabaseUrl', database.url);
  return () => database.drop();
}
