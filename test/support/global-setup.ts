/**
 * Runs once per `vitest run`, before any test file: finds Postgres and Redis (the local
 * services, or containers when they do not answer and Docker does: test-services.ts) and
 * says in one line which it uses, or what to start; creates an empty database for this
 * run and hands its URL to the test files (`inject('testDatabaseUrl')`, see
 * isolation.ts); drops it, and stops any container, when the run ends. Nothing has to be
 * prepared by hand, and runs of several engineers on one server never share a database.
 */
import type { TestProject } from 'vitest/node';
import { createScratchDatabase } from '../../src/warehouse/scratch-database.js';
import { redactUrl } from '../../src/util/database-url.js';
import {
  CONTAINER_IMAGES,
  resolveTestServices,
  startServiceContainer,
  type ServiceContainer,
  type TestService,
} from './test-services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Database of this test run, on the local Postgres or a container (or TEST_DATABASE_URL). */
    testDatabaseUrl: string;
    /** Redis of this test run (TEST_REDIS_URL, the local one, or a container). */
    testRedisUrl: string;
  }
}

/** An error vitest prints as the one line that says what is missing. */
function setupError(message: string): Error {
  const err = new Error(message);
  err.stack = `Error: ${message}`;
  return err;
}

/** Creates this run's database (unless TEST_DATABASE_URL names one) and returns the teardown that drops it. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { targets, plan } = await resolveTestServices(process.env);
  if (!plan.ok) throw setupError(plan.message);
  process.stdout.write(`${plan.line}\n`);

  const containers: ServiceContainer[] = [];
  const teardown: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const step of teardown.reverse()) await step().catch(() => undefined);
    await Promise.all(containers.map((c) => c.stop().catch(() => undefined)));
  };
  try {
    const urlOf = async (service: TestService): Promise<string> => {
      if (plan.sources[service] === 'local') return targets[service].url;
      const container = await startServiceContainer(service).catch((err: Error) => {
        throw setupError(
          `tests could not start a ${service} container (${CONTAINER_IMAGES[service]}) with testcontainers: ${err.message}`,
        );
      });
      containers.push(container);
      return container.url;
    };
    const [postgresUrl, redisUrl] = await Promise.all([urlOf('postgres'), urlOf('redis')]);
    project.provide('testRedisUrl', redisUrl);
    if (targets.postgres.database) {
      project.provide('testDatabaseUrl', postgresUrl);
      return stopAll;
    }
    const database = await createScratchDatabase(postgresUrl, 'test').catch((err: Error) => {
      throw setupError(
        `tests cannot create their database on ${redactUrl(postgresUrl)} (${err.message}); give the role CREATEDB or set TEST_DATABASE_URL to an existing database`,
      );
    });
    teardown.push(() => database.drop());
    project.provide('testDatabaseUrl', database.url);
    return stopAll;
  } catch (err) {
    await stopAll();
    throw err;
  }
}
