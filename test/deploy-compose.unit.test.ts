/**
 * docker-compose.yml and the Dockerfile keep the ops surfaces local: every published
 * port is bound to 127.0.0.1, the image opens its ops server only inside the container,
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
const compose = parseYaml(readFileSync(`${ROOT}docker-compose.yml`, 'utf8')) as {
  services: Record<
    string,
    { ports?: (string | { host_ip?: string })[]; environment?: Record<string, string> }
  >;
};

const dockerCompose = debianTool('docker-compose');

describe('docker-compose.yml', () => {
  it('publishes every port on 127.0.0.1 only', () => {
    const published = Object.entries(compose.services).flatMap(([name, s]) =>
      (s.ports ?? []).map((p) => [name, p] as const),
    );
    expect(published.length).toBeGreaterThan(0);
    for (const [name, port] of published) {
      const bound = typeof port === 'string' ? port.split(':')[0] : port.host_ip;
      expect(bound, `${name} publishes ${JSON.stringify(port)}`).toBe('127.0.0.1');
    }
  });

  it.skipIf(dockerCompose.skip)('passes docker-compose config -q', async () => {
    const { stderr } = await promisify(execFile)(dockerCompose.need(), ['config', '-q'], { cwd: ROOT });
    expect(stderr).toBe('');
  });
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
