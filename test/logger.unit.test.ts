import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../src/api/errors.js';
import {
  createLogger,
  registerSecret,
  scrubPersonal,
  scrubSecrets,
  withoutPersonalData,
} from '../src/logger.js';

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
  return {
    stream,
    text,
    lines: () =>
      text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
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
    expect((d!.req as Record<string, Record<string, unknown>>).headers!.apiservicetoken).toBe('[REDACTED]');
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

  it('scrubs a secret with a quote, a backslash or a non-ASCII character in its JSON-escaped forms too', () => {
    const token = 'tok"en\\with-é-and\u0001';
    registerSecret(token);
    const out = memory();
    const log = createLogger({ destination: out.stream });
    // Once escaped (the line's own string), twice (a JSON body quoted in a message), and as \uXXXX.
    log.warn({ body: JSON.stringify({ token: token }) }, `sent ${token}`);
    log.warn(
      `ascii form ${JSON.stringify(token).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}`,
    );
    const text = out.text();
    for (const form of [token, 'tok\\"en', 'tok\\\\\\"en', 'with-\\u00e9']) expect(text).not.toContain(form);
    expect(text).toContain('[REDACTED]');
    expect(out.lines()).toHaveLength(2);
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
    expect(logged.type).toBe('ApiError');
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
    const cause = new pg.DatabaseError(
      'duplicate key value violates unique constraint "punches_pkey"',
      0,
      'error',
    );
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
    expect(direct).toMatchObject({
      type: 'DatabaseError',
      code: '23505',
      table: 'punches',
      constraint: 'punches_pkey',
      stack: expect.stringContaining('\n    at '),
    });
    expect(direct).not.toHaveProperty('detail');
    expect(wrapped).toMatchObject({
      type: 'Error',
      message: 'load failed: duplicate key value violates unique constraint "punches_pkey"',
    });
    expect(wrapped!.stack).toContain('caused by: error: duplicate key value');
  });

  it('ignores secrets too short to scrub safely', () => {
    registerSecret('abc');
    expect(scrubSecrets('abc abc')).toBe('abc abc');
  });

  it('replaces anything shaped like a CPF in a log line, but not CNPJs, ids or times', () => {
    const out = memory();
    const log = createLogger({ destination: out.stream });
    log.warn(
      { job: 'punches.default.11222333000181.2025-01-01.2025-01-31', point: 1234567890, at: 1736870400000 },
      'collaborator 01234567890 and 012.345.678-90',
    );
    const text = out.text();
    expect(text).not.toMatch(/01234567890|012\.345\.678-90/);
    expect(out.lines()[0]).toMatchObject({
      msg: 'collaborator [cpf] and [cpf]',
      job: 'punches.default.11222333000181.2025-01-01.2025-01-31',
      point: 1234567890,
      at: 1736870400000,
    });
    expect(scrubPersonal('a 12345678909, b 123456789012, c 123.456.789-09')).toBe(
      'a [cpf], b 123456789012, c [cpf]',
    );
  });

  it('logs a database error without the parts that quote a row, its cause included', () => {
    const out = memory();
    const log = createLogger({ destination: out.stream });
    const pgError = () =>
      Object.assign(new Error('duplicate key value violates unique constraint "punches_pkey"'), {
        code: '23505',
        severity: 'ERROR',
        constraint: 'punches_pkey',
        detail: 'Key (company_cnpj, cpf)=(11222333000181, Maria Secreta) already exists.',
        where: 'COPY punches, line 3',
      });
    log.info({ err: pgError() }, 'a');
    log.info({ err: new Error('wrapped', { cause: pgError() }) }, 'b');
    const text = out.text();
    expect(text).not.toContain('Maria Secreta');
    expect(text).not.toContain('COPY punches, line 3');
    expect(out.lines()[0]).toMatchObject({
      err: {
        code: '23505',
        constraint: 'punches_pkey',
        message: 'duplicate key value violates unique constraint "punches_pkey"',
      },
    });
  });

  it('makes an error fit to leave the process: the values a database error quotes withheld, CPFs replaced in message and stack', () => {
    const db = Object.assign(new Error('invalid input syntax for type date: "Maria 2025"'), {
      code: '22007',
      severity: 'ERROR',
      detail: 'row (Maria)',
    });
    const fit = withoutPersonalData(db);
    expect(fit).toBe(db);
    expect(fit.message).toBe('invalid input syntax for type date: "(value withheld)"');
    expect(fit.stack).not.toContain('Maria');
    expect((fit as unknown as { detail?: string }).detail).toBeUndefined();
    const mine = withoutPersonalData(new Error('collaborator 01234567890 belongs elsewhere'));
    expect(mine.message).toBe('collaborator [cpf] belongs elsewhere');
    expect(mine.stack).not.toContain('01234567890');
    // An error that is not a database error keeps its quotes.
    expect(withoutPersonalData(new Error('column "x": "y"')).message).toBe('column "x": "y"');
  });
});

describe('LOG_FORMAT=pretty', () => {
  it('writes readable lines to stderr, not JSON, hiding the same token and CPF', () => {
    // A process of its own: the pretty stream writes to file descriptor 2.
    const logger = new URL('../src/logger.ts', import.meta.url).href;
    const script =
      `const { createLogger, registerSecret } = await import(${JSON.stringify(logger)});` +
      `registerSecret('tok-pretty-9f8e7d');` +
      `createLogger({ format: 'pretty' }).info({ token: 'x', url: '/a?k=tok-pretty-9f8e7d' }, 'hello 12345678909');`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(\d+\): hello \[cpf\]$/);
    expect(() => JSON.parse(lines[0]!) as unknown).toThrow();
    expect(run.stderr).toContain('token: "[REDACTED]"');
    expect(run.stderr).toContain('url: "/a?k=[REDACTED]"');
    expect(run.stderr).not.toContain('tok-pretty-9f8e7d');
    expect(run.stderr).not.toContain('12345678909');
  });
});
