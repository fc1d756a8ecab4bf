/**
 * Where the tests get Postgres and Redis (test/support/test-services.ts): the local
 * services when they answer, containers when they do not and a container runtime does,
 * and otherwise one line naming what to start. The runtime is not even looked for while
 * the local services answer.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { LOCAL_POSTGRES_URL } from '../src/warehouse/scratch-database.js';
import {
  CONTAINER_IMAGES,
  LOCAL_REDIS_URL,
  planTestServices,
  resolveTestServices,
  type ServiceChecks,
  type ServiceProbe,
  type TestService,
} from './support/test-services.js';

const up = (url: string): ServiceProbe => ({ url });
const down = (url: string, failure = 'connect ECONNREFUSED'): ServiceProbe => ({ url, failure });
const RUNTIME = 'Docker Desktop at localhost';

describe('the choice of services (pure)', () => {
  it('takes the local services when they answer, whatever runtime there is', () => {
    for (const runtime of [undefined, RUNTIME]) {
      const plan = planTestServices(
        { postgres: up(LOCAL_POSTGRES_URL), redis: up(LOCAL_REDIS_URL) },
        runtime,
      );
      expect(plan).toEqual({
        ok: true,
        sources: { postgres: 'local', redis: 'local' },
        line: `tests use Postgres at ${LOCAL_POSTGRES_URL} and Redis at ${LOCAL_REDIS_URL}`,
      });
    }
  });

  it('starts containers for the services that do not answer when a container runtime does', () => {
    const both = planTestServices(
      { postgres: down(LOCAL_POSTGRES_URL), redis: down(LOCAL_REDIS_URL) },
      RUNTIME,
    );
    expect(both).toEqual({
      ok: true,
      sources: { postgres: 'container', redis: 'container' },
      line: `tests use Postgres in a container (postgres:15, testcontainers on ${RUNTIME}) and Redis in a container (redis:7, testcontainers on ${RUNTIME})`,
    });
    const one = planTestServices({ postgres: up(LOCAL_POSTGRES_URL), redis: down(LOCAL_REDIS_URL) }, RUNTIME);
    expect(one).toMatchObject({ ok: true, sources: { postgres: 'local', redis: 'container' } });
  });

  it('says in one line what to start when neither the services nor a container runtime answer', () => {
    const plan = planTestServices(
      { postgres: down(LOCAL_POSTGRES_URL), redis: up(LOCAL_REDIS_URL) },
      undefined,
    );
    expect(plan.ok).toBe(false);
    const message = (plan as { message: string }).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(
      /^tests need Postgres: Postgres is not reachable at postgres:\/\/postgres@127\.0\.0\.1:5432\/postgres \(connect ECONNREFUSED\)/,
    );
    expect(message).toContain('pg_ctlcluster');
    expect(message).toContain('start Docker');
    expect(message).toContain('TEST_POSTGRES_URL');
    expect(message).not.toContain('Redis');
    const both = (
      planTestServices({ postgres: down(LOCAL_POSTGRES_URL), redis: down(LOCAL_REDIS_URL) }, undefined) as {
        message: string;
      }
    ).message;
    expect(both).toMatch(
      /^tests need Postgres and Redis: .*redis-server --daemonize yes.*TEST_POSTGRES_URL \/ TEST_REDIS_URL$/,
    );
  });

  it('never replaces a server the environment names with a container', () => {
    const plan = planTestServices(
      {
        postgres: up(LOCAL_POSTGRES_URL),
        redis: { ...down('redis://cache:6379'), givenBy: 'TEST_REDIS_URL' },
      },
      RUNTIME,
    );
    expect(plan).toEqual({
      ok: false,
      message:
        'tests cannot use TEST_REDIS_URL: Redis is not reachable at redis://cache:6379 (connect ECONNREFUSED)',
    });
  });

  it('keeps passwords out of its line', () => {
    const plan = planTestServices(
      {
        postgres: { ...down('postgres://me:s3cret@db:5432/x'), givenBy: 'TEST_DATABASE_URL' },
        redis: up(LOCAL_REDIS_URL),
      },
      undefined,
    );
    expect(JSON.stringify(plan)).not.toContain('s3cret');
  });
});

/** Checks that answer as told and record what was asked. */
function checks(
  answers: Partial<Record<TestService, string>>,
  runtime: string | undefined,
): ServiceChecks & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    probe: (service, url) => {
      asked.push(`${service} ${url}`);
      return Promise.resolve(answers[service]);
    },
    detectRuntime: () => {
      asked.push('runtime');
      return Promise.resolve(runtime);
    },
  };
}

describe('resolving the services of a run', () => {
  it('does not look for a container runtime while the local services answer', async () => {
    const c = checks({}, RUNTIME);
    const { plan } = await resolveTestServices({}, c);
    expect(plan).toMatchObject({ ok: true, sources: { postgres: 'local', redis: 'local' } });
    expect(c.asked).toEqual([`postgres ${LOCAL_POSTGRES_URL}`, `redis ${LOCAL_REDIS_URL}`]);
  });

  it('looks for one when a local service is missing, and plans a container for it', async () => {
    const c = checks({ postgres: 'connect ECONNREFUSED 127.0.0.1:5432' }, RUNTIME);
    const { targets, plan } = await resolveTestServices({}, c);
    expect(c.asked).toContain('runtime');
    expect(plan).toMatchObject({ ok: true, sources: { postgres: 'container', redis: 'local' } });
    expect(targets.postgres).toMatchObject({
      url: LOCAL_POSTGRES_URL,
      database: false,
      failure: 'connect ECONNREFUSED 127.0.0.1:5432',
    });
  });

  it('probes the servers the environment names, and a given database as it is', async () => {
    const c = checks({}, undefined);
    const { targets } = await resolveTestServices(
      { TEST_DATABASE_URL: 'postgres://me@db:5432/mine', TEST_REDIS_URL: 'redis://cache:6380' },
      c,
    );
    expect(c.asked).toEqual(['postgres postgres://me@db:5432/mine', 'redis redis://cache:6380']);
    expect(targets.postgres).toMatchObject({ database: true, givenBy: 'TEST_DATABASE_URL' });
    const server = checks({}, undefined);
    await resolveTestServices({ TEST_POSTGRES_URL: 'postgres://me@db:5432/other' }, server);
    expect(server.asked[0]).toBe('postgres postgres://me@db:5432/postgres');
  });

  it('does not look for a runtime when the missing service was named by the environment', async () => {
    const c = checks({ redis: 'connect ECONNREFUSED' }, RUNTIME);
    const { plan } = await resolveTestServices({ TEST_REDIS_URL: 'redis://cache:6379' }, c);
    expect(c.asked).not.toContain('runtime');
    expect(plan.ok).toBe(false);
  });
});

describe('the containers', () => {
  it('load testcontainers only when one is needed (no static import)', () => {
    const source = readFileSync(new URL('./support/test-services.ts', import.meta.url), 'utf8');
    expect(source).toMatch(/await import\('testcontainers'\)/);
    expect(source).not.toMatch(/^import .*['"](@testcontainers\/[\w-]+|testcontainers)['"]/m);
    const setup = readFileSync(new URL('./support/global-setup.ts', import.meta.url), 'utf8');
    expect(setup).not.toMatch(/['"](@testcontainers\/[\w-]+|testcontainers)['"]/);
  });

  it('run the images docker-compose.yml runs', () => {
    const compose = parseYaml(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8')) as {
      services: Record<string, { image?: string }>;
    };
    expect(CONTAINER_IMAGES).toEqual({
      postgres: compose.services.postgres!.image,
      redis: compose.services.redis!.image,
    });
  });
});
