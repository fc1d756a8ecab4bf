import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../src/api/errors.js';
import { createLogger, registerSecret, scrubSecrets } from '../src/logger.js';

/** A pino destination that keeps every line in memory. */
function memory(): { stream: Writable; text: () => string; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const text = () => chunks.join('');
  return { stream, text, lines: () => text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logger', () => {
  it('redacts token fields by name, at the top level and nested', () => {
    const out = memory();
    const log = createLogger({ destination: out.stream });
    log.info({ token: 'plain-field-token-1' }, 'a');
    log.info({ connection: { name: 'hq', token: 'nested-token-2' } }, 'b');
    log.info({ headers: { apiServiceToken: 'header-token-3' } }, 'c');
    log.info({ req: { headers: { apiservicetoken: 'lower-header-token-4' } } }, 'd');
    const text = out.text();
    for (const t of ['plain-field-token-1', 'nested-token-2', 'header-token-3', 'lower-header-token-4']) {
      expect(text).not.toContain(t);
    }
    const [a, b, c, d] = out.lines();
    expect(a!.token).toBe('[REDACTED]');
    expect((b!.connection as Record<string, unknown>).token).toBe('[REDACTED]');
    expect((b!.connection as Record<string, unknown>).name).toBe('hq');
    expect((c!.headers as Record<string, unknown>).apiServiceToken).toBe('[REDACTED]');
    expect(((d!.req as Record<string, Record<string, unknown>>).headers!).apiservicetoken).toBe('[REDACTED]');
  });

  it('scrubs a registered token wherever it appears: messages, errors, deep objects', () => {
    const token = 'registered-token-7f3e9c';
    registerSecret(token);
    const out = memory();
    const log = createLogger({ destination: out.stream });
    log.warn(`calling with ${token}`);
    log.error({ err: new Error(`upstream said ${token} is wrong`) }, 'failed');
    log.info({ a: { b: { c: { d: { secret: token } } } } }, 'deep');
    const text = out.text();
    expect(text).not.toContain(token);
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(3);
    expect(scrubSecrets(`x${token}y`)).toBe('x[REDACTED]y');
  });

  it('keeps the token out of a logged API error, with the error fields intact', () => {
    const token = 'api-error-token-44aa91';
    registerSecret(token);
    const out = memory();
    const log = createLogger({ destination: out.stream });
    const err = errorFromResponse('collaborator', 401, {
      error: { code: 'invalid_service_token', message: `token ${token} is not valid` },
    });
    log.error({ err, endpoint: err.endpoint, token }, 'request failed');
    const text = out.text();
    expect(text).not.toContain(token);
    const [line] = out.lines();
    expect(line!.token).toBe('[REDACTED]');
    const logged = line!.err as Record<string, unknown>;
    expect(logged.type).toBe('AuthError');
    expect(logged.code).toBe('invalid_service_token');
    expect(logged.status).toBe(401);
  });

  it('names the host and the process on every line', () => {
    const out = memory();
    createLogger({ destination: out.stream }).info('hello');
    expect(out.lines()[0]).toMatchObject({ host: hostname(), pid: process.pid, msg: 'hello' });
  });

  it("logs an error under err with pino's standard fields and its cause, and not the row values a Postgres error quotes", () => {
    const out = memory();
    const cause = new pg.DatabaseError('duplicate key value violates unique constraint "punches_pkey"', 0, 'error');
    Object.assign(cause, {
      code: '23505',
      table: 'punches',
      constraint: 'punches_pkey',
      detail: 'Key (company_cnpj, cpf)=(11222333000181, 52998224725) already exists.',
      where: 'COPY punches, line 2: "11222333000181\t52998224725\tMaria da Silva"',
      internalQuery: "select '52998224725'",
    });
    createLogger({ destination: out.stream }).warn({ err: cause }, 'conflict');
    createLogger({ destination: out.stream }).warn({ err: new Error('load failed', { cause }) }, 'failed');
    expect(out.text()).not.toMatch(/52998224725|Maria/);
    const [direct, wrapped] = out.lines().map((l) => l.err as Record<string, unknown>);
    expect(direct).toMatchObject({ type: 'DatabaseError', code: '23505', table: 'punches', constraint: 'punches_pkey', stack: expect.stringContaining('\n    at ') });
    expect(direct).not.toHaveProperty('detail');
    expect(wrapped).toMatchObject({ type: 'Error', message: 'load failed: duplicate key value violates unique constraint "punches_pkey"' });
    expect(wrapped!.stack).toContain('caused by: error: duplicate key value');
  });

  it('ignores secrets too short to scrub safely', () => {
    registerSecret('abc');
    expect(scrubSecrets('abc abc')).toBe('abc abc');
  });
});
