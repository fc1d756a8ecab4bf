/**
 * The docs and docker-compose.yml agree: every `docker compose` command the docs give
 * (README.md, docs/*.md, the compose file's own comments and the "how to start it" hints
 * of src/probes/services.ts) names services the file has; every Postgres or Redis URL on
 * this host that they give for the compose services is a port the file publishes (or,
 * where the passage adds the override docker-compose.host.yml, the override publishes),
 * with its user, password and database; a command that starts Postgres or Redis for use
 * from the host comes with the URL to reach it; and the host ports named beside compose
 * services are the ones published. Postgres and Redis publish nothing without the
 * override, and the docs say how to reach them inside the compose network.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { START_POSTGRES_HINT, START_REDIS_HINT } from '../src/probes/services.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

interface Service {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
}
const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const names = Object.keys(services);
/** The override that publishes Postgres and Redis on the host. */
const HOST_OVERRIDE = 'docker-compose.host.yml';
const hostOverride = parseYaml(read(HOST_OVERRIDE)) as { services: Record<string, Service> };

/** What a service is, by its image: the two a punchline on the host connects to, or another. */
const kindOf = (s: Service): 'postgres' | 'redis' | undefined =>
  s.image?.startsWith('postgres') ? 'postgres' : s.image?.startsWith('redis') ? 'redis' : undefined;
/** The default port inside a container of each kind. */
const CONTAINER_PORT = { postgres: 5432, redis: 6379 } as const;
/** Host port → container port of published ports (`127.0.0.1:55432:5432`). */
function portMap(ports: string[]): Map<number, number> {
  return new Map(
    ports.map((p) => {
      const parts = p.split(':');
      return [Number(parts.at(-2)), Number(parts.at(-1))] as const;
    }),
  );
}
/** What service `name` publishes: its own ports, and the override's where `text` adds the override. */
const portsOf = (name: string, text: string): string[] => [
  ...(services[name]?.ports ?? []),
  ...(text.includes(HOST_OVERRIDE) ? (hostOverride.services[name]?.ports ?? []) : []),
];
const published = (name: string, text: string): Map<number, number> => portMap(portsOf(name, text));

/** A piece of text that the checks read: a section of a page, a comment block, a hint. */
interface Passage {
  readonly where: string;
  readonly text: string;
}

/** Each page cut at its headings, so a command and the URLs given with it are read together. */
function passages(): Passage[] {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const fromPages = pages.flatMap((page) =>
    read(page)
      .split(/^(?=#{1,6} )/m)
      .map((text) => ({ where: `${page} "${/^#+ (.*)/.exec(text)?.[1] ?? '(top)'}"`, text })),
  );
  const comments = read('docker-compose.yml')
    .split('\n')
    .filter((l) => l.trimStart().startsWith('#'))
    .join('\n');
  return [
    ...fromPages,
    { where: 'the comments of docker-compose.yml', text: comments },
    { where: 'START_POSTGRES_HINT (src/probes/services.ts)', text: START_POSTGRES_HINT },
    { where: 'START_REDIS_HINT (src/probes/services.ts)', text: START_REDIS_HINT },
  ];
}

/** A `docker compose` (or `docker-compose`) command: its subcommand and the services it names. */
interface ComposeCommand {
  readonly text: string;
  readonly subcommand: string;
  readonly services: string[];
}

/** Subcommands whose first argument is a service and the rest a command run in it. */
const ONE_SERVICE = new Set(['exec', 'run']);
/** Subcommands that name no service. */
const NO_SERVICE = new Set(['config', 'version', 'ls', 'down']);

function commandsIn(text: string): ComposeCommand[] {
  return [...text.matchAll(/docker[- ]compose((?: +[\w./:=-]+)+)/g)].map((m) => {
    const args = m[1]!
      .trim()
      .split(/ +/)
      // `-f file` names a compose file, not a subcommand or a service.
      .filter((a, i, all) => !a.startsWith('-') && !['-f', '--file'].includes(all[i - 1] ?? ''));
    const [subcommand = '', ...rest] = args;
    const named = NO_SERVICE.has(subcommand)
      ? []
      : ONE_SERVICE.has(subcommand)
        ? rest.slice(0, 1)
        : rest.filter((a) => !a.includes('='));
    return { text: m[0], subcommand, services: named };
  });
}

/** A Postgres or Redis URL in the text. */
interface ServiceUrl {
  readonly text: string;
  readonly kind: 'postgres' | 'redis';
  readonly url: URL;
}

function urlsIn(text: string): ServiceUrl[] {
  return [...text.matchAll(/\b(postgres(?:ql)?|redis):\/\/[^\s`'"),]+/g)].map((m) => ({
    text: m[0],
    kind: m[1]!.startsWith('postgres') ? ('postgres' as const) : ('redis' as const),
    url: new URL(m[0]),
  }));
}

const onThisHost = (u: URL): boolean => u.hostname === 'localhost' || u.hostname === '127.0.0.1';
const portOf = (u: URL, kind: 'postgres' | 'redis'): number =>
  u.port ? Number(u.port) : CONTAINER_PORT[kind];

/** Why `u` does not reach the compose service `name` from the host, or undefined when it does. */
function mismatch(u: ServiceUrl, name: string, text: string): string | undefined {
  const s = services[name]!;
  const env = s.environment ?? {};
  if (!published(name, text).has(portOf(u.url, u.kind)))
    return `${name} is not published on port ${portOf(u.url, u.kind)} (ports: ${portsOf(name, text).join(', ') || 'none'})`;
  if (u.kind === 'postgres') {
    if (decodeURIComponent(u.url.username) !== (env.POSTGRES_USER ?? 'postgres'))
      return `the user is not POSTGRES_USER ${env.POSTGRES_USER}`;
    if (u.url.password && decodeURIComponent(u.url.password) !== env.POSTGRES_PASSWORD)
      return 'the password is not POSTGRES_PASSWORD';
    if (u.url.pathname.slice(1) !== (env.POSTGRES_DB ?? env.POSTGRES_USER))
      return `the database is not POSTGRES_DB ${env.POSTGRES_DB}`;
  }
  return undefined;
}

/** Whether a passage is about the compose file. */
const aboutCompose = (p: Passage): boolean => /docker[- ]compose/.test(p.text);

describe('docker-compose.yml and the docs', () => {
  const all = passages();

  it('reads the commands and URLs it checks (the check is not vacuous)', () => {
    const commands = all.flatMap((p) => commandsIn(p.text));
    expect(commands.map((c) => c.subcommand)).toEqual(expect.arrayContaining(['up', 'exec', 'run']));
    expect(names).toEqual(expect.arrayContaining(['postgres', 'redis', 'worker']));
    expect(
      all
        .filter(aboutCompose)
        .flatMap((p) => urlsIn(p.text))
        .filter((u) => onThisHost(u.url)).length,
    ).toBeGreaterThan(2);
  });

  it('publishes Postgres and Redis on no host port; only the override does, on 127.0.0.1', () => {
    const stores = names.filter((n) => kindOf(services[n]!) !== undefined);
    expect(stores.sort()).toEqual(['postgres', 'redis']);
    for (const n of stores) expect(services[n]!.ports, `${n} in docker-compose.yml`).toBeUndefined();
    expect(Object.keys(hostOverride.services).sort()).toEqual(['postgres', 'redis']);
    for (const [n, s] of Object.entries(hostOverride.services)) {
      expect(s.ports?.length, `${n} in ${HOST_OVERRIDE}`).toBeGreaterThan(0);
      for (const port of s.ports ?? []) expect(port, `${n} in ${HOST_OVERRIDE}`).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('says how to reach Postgres and Redis inside the compose network', () => {
    const reach = all.flatMap((p) => commandsIn(p.text)).filter((c) => c.subcommand === 'exec');
    expect(
      reach.filter((c) => c.services[0] === 'postgres' && /\bpsql\b/.test(c.text)).length,
    ).toBeGreaterThan(0);
    expect(
      reach.filter((c) => c.services[0] === 'redis' && /\bredis-cli\b/.test(c.text)).length,
    ).toBeGreaterThan(0);
  });

  it('adds the override to every command that starts Postgres or Redis for the host', () => {
    const bare = all.flatMap((p) =>
      commandsIn(p.text)
        .filter((c) => c.subcommand === 'up' && c.services.some((n) => kindOf(services[n] ?? {})))
        .filter((c) => !c.text.includes(HOST_OVERRIDE))
        .map((c) => `${p.where}: \`${c.text}\``),
    );
    expect(bare).toEqual([]);
  });

  it('names only services the compose file has', () => {
    const unknown = all.flatMap((p) =>
      commandsIn(p.text).flatMap((c) =>
        c.services.filter((s) => !names.includes(s)).map((s) => `${p.where}: \`${c.text}\` names ${s}`),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it('gives, with every command that starts Postgres or Redis for the host, the URL that reaches it', () => {
    const missing: string[] = [];
    for (const p of all) {
      for (const c of commandsIn(p.text).filter((x) => x.subcommand === 'up')) {
        for (const name of c.services) {
          const kind = services[name] && kindOf(services[name]);
          if (!kind) continue;
          const given = urlsIn(p.text).filter(
            (u) => u.kind === kind && onThisHost(u.url) && mismatch(u, name, p.text) === undefined,
          );
          if (given.length === 0)
            missing.push(
              `${p.where}: \`${c.text}\` starts ${name}, but no ${kind}:// URL on this host reaches it`,
            );
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives for the compose services only URLs that reach them from the host', () => {
    const wrong: string[] = [];
    for (const p of all.filter(aboutCompose)) {
      for (const u of urlsIn(p.text).filter((x) => onThisHost(x.url))) {
        const candidates = names.filter((n) => kindOf(services[n]!) === u.kind);
        const why = candidates.map((n) => mismatch(u, n, p.text));
        // A URL of the local services (the defaults) beside a compose command is fine only where it names their port.
        const local =
          portOf(u.url, u.kind) === CONTAINER_PORT[u.kind] &&
          !candidates.some((n) => published(n, p.text).has(CONTAINER_PORT[u.kind]));
        if (!local && !why.includes(undefined)) wrong.push(`${p.where}: ${u.text}: ${why.join('; ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names beside each compose service the host port it publishes', () => {
    const wrong: string[] = [];
    for (const p of all.filter(aboutCompose)) {
      for (const name of names) {
        for (const m of p.text.matchAll(new RegExp(`\\b${name} (\\d{2,5})\\b`, 'g'))) {
          if (!published(name, p.text).has(Number(m[1])))
            wrong.push(
              `${p.where}: "${m[0]}" but ${name} publishes ${portsOf(name, p.text).join(', ') || 'nothing'}`,
            );
        }
      }
      for (const m of p.text.matchAll(/https?:\/\/(?:localhost|127\.0\.0\.1):(\d+)/g)) {
        if (!names.some((n) => published(n, p.text).has(Number(m[1]))))
          wrong.push(`${p.where}: ${m[0]} is no port the compose file publishes`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('connects its own services by their names, ports and credentials', () => {
    const env = Object.values(services).flatMap((s) => Object.values(s.environment ?? {}));
    const urls = env.flatMap((v) => urlsIn(String(v)));
    expect(urls.map((u) => u.kind).sort()).toEqual(['postgres', 'redis']);
    for (const u of urls) {
      const target = services[u.url.hostname];
      expect(target, `${u.text}: no service ${u.url.hostname}`).toBeDefined();
      expect(kindOf(target!), u.text).toBe(u.kind);
      expect(portOf(u.url, u.kind), u.text).toBe(CONTAINER_PORT[u.kind]);
      if (u.kind === 'postgres') {
        const e = target!.environment ?? {};
        expect([u.url.username, u.url.password, u.url.pathname.slice(1)], u.text).toEqual([
          e.POSTGRES_USER,
          e.POSTGRES_PASSWORD,
          e.POSTGRES_DB,
        ]);
      }
    }
  });
});
