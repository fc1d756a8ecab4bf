/**
 * Where the tests get Postgres and Redis (global-setup.ts): the local services when they
 * answer; otherwise containers that testcontainers starts, when a container runtime
 * (Docker, Podman) answers; otherwise one line naming what to start. A URL given in
 * TEST_POSTGRES_URL, TEST_DATABASE_URL or TEST_REDIS_URL is used as it is and never
 * replaced by a container. testcontainers is loaded only when a container is needed, so
 * a machine with the local services never touches it.
 */
import { randomBytes } from 'node:crypto';
import { assertPostgresReachable, assertRedisReachable } from '../../src/probes/services.js';
import { redactUrl } from '../../src/util/database-url.js';
import { LOCAL_POSTGRES_URL, withDatabase } from '../../src/warehouse/scratch-database.js';

/** The services the tests need. */
export const TEST_SERVICES = ['postgres', 'redis'] as const;
/** One of {@link TEST_SERVICES}. */
export type TestService = (typeof TEST_SERVICES)[number];
/** Where a service comes from. */
export type ServiceSource = 'local' | 'container';

/** The images of the containers: the versions docker-compose.yml runs. */
export const CONTAINER_IMAGES: Readonly<Record<TestService, string>> = Object.freeze({
  postgres: 'postgres:15',
  redis: 'redis:7',
});
/** The local Redis the tests use when nothing else is configured. */
export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

const LABEL: Readonly<Record<TestService, string>> = { postgres: 'Postgres', redis: 'Redis' };
/** The variable that points the tests at another server of each service. */
const VARIABLE: Readonly<Record<TestService, string>> = {
  postgres: 'TEST_POSTGRES_URL',
  redis: 'TEST_REDIS_URL',
};
/** How to start each service on Debian. */
const START: Readonly<Record<TestService, string>> = {
  postgres:
    '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` (Debian: apt-get install postgresql)',
  redis: '`redis-server --daemonize yes --save "" --appendonly no` (Debian: apt-get install redis-server)',
};

/** How one service answered at its URL. */
export interface ServiceProbe {
  /** The URL tried (the server's, for Postgres). */
  readonly url: string;
  /** The variable that gave the URL, when one did (then no container replaces it). */
  readonly givenBy?: string;
  /** Why it did not answer; undefined when it answered. */
  readonly failure?: string;
}

/** What the run uses, or why it cannot run. */
export type ServicesPlan =
  | {
      readonly ok: true;
      readonly sources: Readonly<Record<TestService, ServiceSource>>;
      readonly line: string;
    }
  | { readonly ok: false; readonly message: string };

/**
 * Decides where each service comes from (pure): a service that answers is used; one
 * that does not is started in a container when `runtime` names an answering container
 * runtime and its URL was not given explicitly; otherwise the plan is the one line that
 * says what to start.
 */
export function planTestServices(
  probes: Readonly<Record<TestService, ServiceProbe>>,
  runtime: string | undefined,
): ServicesPlan {
  const down = TEST_SERVICES.filter((s) => probes[s].failure !== undefined);
  const unreachable = (s: TestService) =>
    `${LABEL[s]} is not reachable at ${redactUrl(probes[s].url)} (${probes[s].failure})`;
  const given = down.filter((s) => probes[s].givenBy !== undefined);
  if (given.length > 0) {
    return {
      ok: false,
      message: `tests cannot use ${given.map((s) => `${probes[s].givenBy}: ${unreachable(s)}`).join('; ')}`,
    };
  }
  if (down.length > 0 && runtime === undefined) {
    const what = down.map((s) => LABEL[s]).join(' and ');
    return {
      ok: false,
      message:
        `tests need ${what}: ${down.map(unreachable).join('; ')}, and no container runtime answers to start ${down.length > 1 ? 'them' : 'it'} in. ` +
        `Start ${down.map((s) => `${LABEL[s]} with ${START[s]}`).join(' and ')}, or start Docker (testcontainers then runs ${what}), ` +
        `or set ${down.map((s) => VARIABLE[s]).join(' / ')}`,
    };
  }
  const sources = Object.fromEntries(
    TEST_SERVICES.map((s) => [s, down.includes(s) ? 'container' : 'local']),
  ) as Record<TestService, ServiceSource>;
  const parts = TEST_SERVICES.map((s) =>
    sources[s] === 'local'
      ? `${LABEL[s]} at ${redactUrl(probes[s].url)}`
      : `${LABEL[s]} in a container (${CONTAINER_IMAGES[s]}, testcontainers on ${runtime})`,
  );
  return { ok: true, sources: Object.freeze(sources), line: `tests use ${parts.join(' and ')}` };
}

/** The I/O {@link resolveTestServices} needs, injected so the choice can be tested without services. */
export interface ServiceChecks {
  /** Why `service` does not answer at `url`, or undefined when it does. */
  probe(service: TestService, url: string): Promise<string | undefined>;
  /** A name for the container runtime that answers, or undefined when none does. */
  detectRuntime(): Promise<string | undefined>;
}

/** What the tests were pointed at, and how each service answered. */
export interface ServiceTargets {
  /** Postgres server on which the run creates its database, or the database TEST_DATABASE_URL names. */
  readonly postgres: ServiceProbe & { readonly database: boolean };
  readonly redis: ServiceProbe;
}

/** The first cause's message: the reason, without the hint the error adds for commands. */
const reasonOf = (err: unknown): string => {
  const e = err as Error & { cause?: unknown };
  return e.cause instanceof Error ? e.cause.message : e.message;
};

/** The real checks: a connection to each service, and testcontainers' own runtime detection (loaded only here). */
export const DEFAULT_CHECKS: ServiceChecks = {
  async probe(service, url) {
    try {
      await (service === 'postgres' ? assertPostgresReachable(url) : assertRedisReachable(url));
      return undefined;
    } catch (err) {
      return reasonOf(err);
    }
  },
  async detectRuntime() {
    try {
      const { getContainerRuntimeClient } = await import('testcontainers');
      const client = await getContainerRuntimeClient();
      return `${client.info.containerRuntime.operatingSystem} at ${client.info.containerRuntime.host}`;
    } catch {
      return undefined;
    }
  },
};

/**
 * Probes the services the environment points at and plans the run; the container runtime
 * is looked for only when a service does not answer.
 */
export async function resolveTestServices(
  env: NodeJS.ProcessEnv,
  checks: ServiceChecks = DEFAULT_CHECKS,
): Promise<{ readonly targets: ServiceTargets; readonly plan: ServicesPlan }> {
  const database = env.TEST_DATABASE_URL || undefined;
  const server = env.TEST_POSTGRES_URL || undefined;
  const postgresUrl = database ?? server ?? LOCAL_POSTGRES_URL;
  const redisUrl = env.TEST_REDIS_URL || LOCAL_REDIS_URL;
  const [pgFailure, redisFailure] = await Promise.all([
    checks.probe('postgres', database ? postgresUrl : withDatabase(postgresUrl, 'postgres')),
    checks.probe('redis', redisUrl),
  ]);
  const targets: ServiceTargets = {
    postgres: {
      url: postgresUrl,
      database: database !== undefined,
      ...(database ? { givenBy: 'TEST_DATABASE_URL' } : server ? { givenBy: 'TEST_POSTGRES_URL' } : {}),
      ...(pgFailure === undefined ? {} : { failure: pgFailure }),
    },
    redis: {
      url: redisUrl,
      ...(env.TEST_REDIS_URL ? { givenBy: 'TEST_REDIS_URL' } : {}),
      ...(redisFailure === undefined ? {} : { failure: redisFailure }),
    },
  };
  const needsContainer = TEST_SERVICES.some(
    (s) => targets[s].failure !== undefined && targets[s].givenBy === undefined,
  );
  const runtime = needsContainer ? await checks.detectRuntime() : undefined;
  return { targets, plan: planTestServices(targets, runtime) };
}

/** A service running in a container for this run. */
export interface ServiceContainer {
  /** Where it answers (for Postgres, the server: the run creates its database there). */
  readonly url: string;
  /** Stops and removes the container. */
  stop(): Promise<void>;
}

/** Starts `service` in a container with testcontainers (loaded here, only when needed). */
export async function startServiceContainer(service: TestService): Promise<ServiceContainer> {
  if (service === 'postgres') {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    // A password of its own: a plain word would be scrubbed from every log line as a secret.
    const started = await new PostgreSqlContainer(CONTAINER_IMAGES.postgres)
      .withUsername('postgres')
      .withPassword(`test-${randomBytes(8).toString('hex')}`)
      .withDatabase('postgres')
      .start();
    return { url: started.getConnectionUri(), stop: () => started.stop().then(() => undefined) };
  }
  const { RedisContainer } = await import('@testcontainers/redis');
  const started = await new RedisContainer(CONTAINER_IMAGES.redis).start();
  return { url: started.getConnectionUrl(), stop: () => started.stop().then(() => undefined) };
}
