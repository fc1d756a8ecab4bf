/**
 * The packages installed under the ops server get the dependencies they were written
 * for: no `overrides` in package.json forces one of them onto a version whose API they
 * do not use (an override once gave light-my-request a `cookie` without
 * `stringifySetCookie`, and @fastify/static a `content-disposition` without `create`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

/** Loads `name` as the package `from` (itself a dependency of `via`) resolves it. */
function loadAs(name: string, from: string, via: string): Record<string, unknown> {
  const viaDir = dirname(require.resolve(`${via}/package.json`));
  const fromDir = dirname(require.resolve(`${from}/package.json`, { paths: [viaDir] }));
  return require(require.resolve(name, { paths: [fromDir] })) as Record<string, unknown>;
}

describe('dependencies of the ops server', () => {
  it('are not forced by overrides in package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      overrides?: Record<string, unknown>;
    };
    expect(pkg.overrides?.cookie).toBeUndefined();
    expect(pkg.overrides?.['content-disposition']).toBeUndefined();
  });

  it('give light-my-request (under fastify) the cookie API it calls', () => {
    const cookie = loadAs('cookie', 'light-my-request', 'fastify');
    expect(typeof cookie.stringifySetCookie).toBe('function');
  });

  it('give @fastify/static (under the dashboard) the content-disposition API it calls', () => {
    const contentDisposition = loadAs('content-disposition', '@fastify/static', '@bull-board/fastify');
    expect(typeof contentDisposition.create).toBe('function');
  });
});
