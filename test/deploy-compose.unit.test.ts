/**
 * docker-compose.yml and the Dockerfile keep the ops surfaces local: every published
 * port is bound to 127.0.0.1 (Postgres and Redis publish none unless the host override
 * docker-compose.host.yml is added), the image opens its ops server only inside the container,
 * and `docker-compose config -q` accepts the file where docker-compose is installed.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { debianTool } from './support/debian-tools.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
type ComposeFile = {
  services: Record<
    string,
    { ports?: (string | { host_ip?: string })[]; environment?: Record<string, string> }
  >;
};
const compose = parseYaml(readFileSync(`${ROOT}docker-compose.yml`, 'utf8')) as ComposeFile;
/** The override that publishes Postgres and Redis on the host (docs/operations.md, Docker Compose). */
const hostOverride = parseYaml(readFileSync(`${ROOT}docker-compose.host.yml`, 'utf8')) as ComposeFile;

const dockerCompose = debianTool('docker-compose');

describe('docker-compose.yml', () => {
  it('publishes every port on 127.0.0.1 only, with the host override too', () => {
    const published = [compose, hostOverride].flatMap((file) =>
      Object.entries(file.services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p] as const)),
    );
    expect(published.map(([name]) => name)).toEqual(expect.arrayContaining(['worker', 'postgres', 'redis']));
    for (const [name, port] of published) {
      const bound = typeof port === 'string' ? port.split(':')[0] : port.host_ip;
      expect(bound, `${name} publishes ${JSON.stringify(port)}`).toBe('127.0.0.1');
    }
  });

  it('keeps Postgres and Redis on the compose network: no published port without the override', () => {
    expect(compose.services.postgres).toBeDefined();
    expect(compose.services.redis).toBeDefined();
    expect(compose.services.postgres!.ports).toBeUndefined();
    expect(compose.services.redis!.ports).toBeUndefined();
  });

  it.skipIf(dockerCompose.skip)('passes docker-compose config -q', async () => {
    const { stderr } = await promisify(execFile)(dockerCompose.need(), ['config', '-q'], { cwd: ROOT });
    expect(stderr).toBe('');
  });

  it.skipIf(dockerCompose.skip)(
    'passes docker-compose config -q with the host override, which publishes Postgres and Redis',
    async () => {
      const files = ['-f', 'docker-compose.yml', '-f', 'docker-compose.host.yml'];
      await promisify(execFile)(dockerCompose.need(), [...files, 'config', '-q'], { cwd: ROOT });
      const { stdout } = await promisify(execFile)(dockerCompose.need(), [...files, 'config'], { cwd: ROOT });
      const merged = parseYaml(stdout) as ComposeFile;
      const hostPorts = (name: string) =>
        (merged.services[name]!.ports ?? []).map((p) =>
          typeof p === 'string' ? p : `${p.host_ip}:${(p as { published?: unknown }).published}`,
        );
      expect(hostPorts('postgres').join()).toMatch(/^127\.0\.0\.1:55432/);
      expect(hostPorts('redis').join()).toMatch(/^127\.0\.0\.1:56379/);
    },
  );
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8');
  /** The instructions of the last stage, the image that runs. */
  const runtime = dockerfile.split(/^FROM /m).at(-1)!;
  const copied = [...runtime.matchAll(/^COPY (?:--from=\S+ )?(.+) (\S+)$/gm)].flatMap((m) =>
    m[1]!.split(/\s+/).map((src) => ({ src, dest: m[2]! })),
  );

  it('sets OPS_HOST=0.0.0.0 explicitly, the default elsewhere being 127.0.0.1', () => {
    expect(dockerfile).toMatch(/^\s+OPS_HOST=0\.0\.0\.0$/m);
  });

  it('installs only production dependencies in the image that runs, and takes none from the build stage', () => {
    expect(runtime).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect(copied.filter((c) => c.src.includes('node_modules'))).toEqual([]);
  });

  it('holds what the published package holds, and no TypeScript sources', () => {
    const files = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { files: string[] }).files;
    const sources = copied.map((c) => c.src.replace(/^\/app\//, '').replace(/\/$/, ''));
    for (const f of files) {
      const path = f.replace(/\/$/, '');
      expect(
        sources.some((s) => path === s || path.startsWith(`${s}/`)),
        `${f} of package.json "files" is not copied into the image`,
      ).toBe(true);
    }
    expect(sources.filter((s) => /^(src|jobs|test|bench|tsconfig)/.test(s))).toEqual([]);
  });
});
