import { Writable } from 'node:stream';
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

  it('ignores secrets too short to scrub safely', () => {
    registerSecret('abc');
    expect(scrubSecrets('abc abc')).toBe('abc abc');
  });
});
