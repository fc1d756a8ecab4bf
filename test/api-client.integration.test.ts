/**
 * ApiClient mechanics over real HTTP, against a local fastify server on a random port
 * that each test scripts: encoding, multipart, retries, 429, validation, error mapping,
 * hooks, limiter, size limit and token hygiene. Behaviour against a faithful API is
 * covered by the emulator's conformance suite.
 */
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions } from '../src/api/client.js';
import { ApiError, API_ERROR_CODES, API_ERRORS, isPermanent } from '../src/api/errors.js';
import { createLogger } from '../src/logger.js';

const TOKEN = 'tok-integration-9d8c7b6a5f';

// ---- fixtures: valid records of spec §2 ---------------------------------------------

const companyBlock = { name: 'ACME SA', trading_name: 'Acme', national_registry: '11222333000181' };
const collaborator = {
  national_registry: '01234567890',
  registration_number: '42',
  email: 'ana@acme.test',
  name: 'Ana',
  occupation: 'Dev',
  department: 'IT',
  team: null,
  business_unit: 'HQ',
  admission_date: '2020-01-02',
  pis: '12345678901',
  company: companyBlock,
};
const dept = [
  { id: 1, description: 'IT' },
  { id: 2, description: 'HR' },
];
const DEPT_BODY = JSON.stringify({ data: dept });

// ---- the scripted server ------------------------------------------------------------

interface Seen {
  method: string;
  url: string;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
  fields: [string, string][];
  files: { field: string; filename: string; mimetype: string; content: Buffer }[];
}

type Handler = (req: FastifyRequest, reply: FastifyReply, n: number) => unknown;

let app: FastifyInstance;
let baseUrl: string;
let handler: Handler = (_req, reply) =>
  reply.code(500).send({ error: { code: 'unscripted', message: 'no handler' } });
let seen: Seen[] = [];
const clients: ApiClient[] = [];

beforeAll(async () => {
  app = Fastify({ forceCloseConnections: true, keepAliveTimeout: 60_000 });
  await app.register(multipart, { limits: { fileSize: 1024 * 1024 } });
  app.all('/*', async (req, reply) => {
    const entry: Seen = {
      method: req.method,
      url: req.url,
      query: req.query as Record<string, unknown>,
      headers: req.headers,
      body: req.body,
      fields: [],
      files: [],
    };
    if (req.isMultipart()) {
      for await (const part of req.parts()) {
        if (part.type === 'file') {
          entry.files.push({
            field: part.fieldname,
            filename: part.filename,
            mimetype: part.mimetype,
            content: await part.toBuffer(),
          });
        } else {
          entry.fields.push([part.fieldname, String(part.value)]);
        }
      }
    }
    seen.push(entry);
    return handler(req, reply, seen.length);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
});

afterEach(async () => {
  seen = [];
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await app.close();
});

/** Everything a test wants to observe about one client. */
interface Probe {
  client: ApiClient;
  delays: number[];
  events: { hook: string; e: Record<string, unknown> }[];
  limiter: { acquired: number; released: number; inFlight: number; rateLimited: number[] };
}

function makeClient(overrides: Partial<ClientOptions> = {}): Probe {
  const delays: number[] = [];
  const events: Probe['events'] = [];
  const limiter: Probe['limiter'] = { acquired: 0, released: 0, inFlight: 0, rateLimited: [] };
  const record = (hook: string) => (e: object) =>
    events.push({ hook, e: { ...e } as Record<string, unknown> });
  const client = new ApiClient({
    baseUrl,
    token: TOKEN,
    timeoutMs: 2_000,
    maxAttempts: 4,
    random: () => 0.5,
    sleep: async (ms, signal) => {
      expect(limiter.inFlight).toBe(0); // the slot is released before waiting
      delays.push(ms);
      if (signal?.aborted) throw signal.reason;
    },
    limiter: {
      acquire: async () => {
        limiter.acquired += 1;
        limiter.inFlight += 1;
        return () => {
          limiter.released += 1;
          limiter.inFlight -= 1;
        };
      },
      onRateLimited: (ms) => {
        limiter.rateLimited.push(ms);
      },
    },
    hooks: {
      onRequest: record('request'),
      onResponse: record('response'),
      onRetry: record('retry'),
      onRateLimited: record('rateLimited'),
    },
    ...overrides,
  });
  clients.push(client);
  return { client, delays, events, limiter };
}

const ok = (data: unknown, meta?: unknown) => (_req: FastifyRequest, reply: FastifyReply) =>
  reply.send(meta === undefined ? { data } : { data, meta });
const fail = (status: number, code: string, message = 'nope', extra: object = {}) =>
  ({ error: { code, message }, ...extra, status }) as const;

/** Answers `script[n-1]` on the n-th request; the last entry repeats. */
function sequence(
  ...script: (((req: FastifyRequest, reply: FastifyReply) => unknown) | ReturnType<typeof fail>)[]
): Handler {
  return (req, reply, n) => {
    const step = script[Math.min(n, script.length) - 1]!;
    if (typeof step === 'function') return step(req, reply);
    const { status, ...body } = step;
    return reply.code(status).send(body);
  };
}

/** Closes the socket without answering (a dropped connection). */
const drop = (req: FastifyRequest, reply: FastifyReply) => {
  reply.hijack();
  req.raw.socket.destroy();
};

/** A port where nothing listens (connection refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

// ---- tests --------------------------------------------------------------------------

describe('request encoding', () => {
  it('sends list parameters as repeated name[] keys, booleans as 1, no commas or JSON (spec 1.3)', async () => {
    handler = ok([], { begin_date: '2024-01-01', end_date: '2024-01-31' });
    const { client } = makeClient();
    await client.getPointsFromPeriod({
      beginDate: '2024-01-01',
      endDate: '2024-01-31',
      nationalRegistryList: ['01234567890', '52998224725'],
      emailList: ['a@x.test'],
      decimalFormat: true,
    });
    const [req] = seen;
    expect(req!.method).toBe('GET');
    expect(req!.url.startsWith('/customer/v2/point/getFromPeriod?')).toBe(true);
    expect(req!.query).toEqual({
      begin_date: '2024-01-01',
      end_date: '2024-01-31',
      'national_registry_list[]': ['01234567890', '52998224725'],
      'email_list[]': 'a@x.test',
      decimal_format: '1',
    });
    const raw = decodeURIComponent(req!.url);
    expect(raw).not.toMatch(/01234567890,/);
    expect(raw).not.toContain('["');
  });

  it('adds the scope parameters on GETs only (spec 1.4)', async () => {
    handler = ok(dept);
    const { client } = makeClient();
    await client.listDepartments({ includeBranches: true, companyNationalRegistry: '00222333000181' });
    await client.listDepartments();
    handler = (_req, reply) => reply.code(201).send({ data: { id: 9 } });
    await client.createDepartment({ description: 'Ops' });
    expect(seen[0]!.query).toEqual({ include_branches: '1', company_national_registry: '00222333000181' });
    expect(seen[1]!.url).toBe('/customer/v2/department');
    expect(seen[2]!.url).toBe('/customer/v2/department');
    await expect(
      client.request('POST department', { scope: { includeBranches: true }, body: { description: 'x' } }),
    ).rejects.toThrow(/scope and query parameters apply to GET only/);
    expect(seen).toHaveLength(3);
  });

  it('sends the token in the apiServiceToken header and nowhere else', async () => {
    handler = ok(dept);
    const { client } = makeClient();
    await client.listDepartments({ companyNationalRegistry: '11222333000181' });
    expect(seen[0]!.headers.apiservicetoken).toBe(TOKEN);
    expect(seen[0]!.url).not.toContain(TOKEN);
  });

  it('sends JSON bodies on writes', async () => {
    handler = (_req, reply) => reply.code(201).send({ data: { point_id: 77, hash: 'a'.repeat(64) } });
    const { client } = makeClient();
    const res = await client.registerPoint({
      national_registry: '01234567890',
      datetime: '2024-01-02 08:00:00',
    });
    expect(res).toEqual({ point_id: 77, hash: 'a'.repeat(64) });
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/customer/v2/point');
    expect(String(seen[0]!.headers['content-type'])).toMatch(/^application\/json/);
    expect(seen[0]!.body).toEqual({ national_registry: '01234567890', datetime: '2024-01-02 08:00:00' });

    handler = ok({ success: true });
    await client.dismissCollaborator({
      dismissal_date: '2024-02-01',
      fired_type_id: 3,
      national_registry: '01234567890',
    });
    expect(seen[1]!.method).toBe('PUT');
    expect(seen[1]!.url).toBe('/customer/v2/collaborator/dismissal');
  });

  it('sends an absence as multipart: national_registry[] repeated, one attachment[] per file, booleans 1/0', async () => {
    handler = (_req, reply) => reply.code(201).send({ data: { absence_id: 501 } });
    const { client } = makeClient();
    const pdf = Buffer.from('%PDF-1.4 fake');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    const res = await client.createAbsence(
      {
        national_registry: ['01234567890', '52998224725'],
        absence_type_id: 4,
        description: 'Atestado',
        details: 'Gripe',
        begin_date: '2024-03-01',
        end_date: '2024-03-02',
        paid: true,
        full_day: false,
        sum_on_work_time: true,
        sum_total_on_work_time: false,
      },
      [
        { filename: 'atestado.pdf', mimeType: 'application/pdf', content: pdf },
        { filename: 'foto.png', mimeType: 'image/png', content: png },
      ],
    );
    expect(res).toEqual({ absence_id: 501 });
    const req = seen[0]!;
    expect(String(req.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.fields).toEqual([
      ['national_registry[]', '01234567890'],
      ['national_registry[]', '52998224725'],
      ['absence_type_id', '4'],
      ['description', 'Atestado'],
      ['details', 'Gripe'],
      ['begin_date', '2024-03-01'],
      ['end_date', '2024-03-02'],
      ['paid', '1'],
      ['full_day', '0'],
      ['sum_on_work_time', '1'],
      ['sum_total_on_work_time', '0'],
    ]);
    expect(req.files.map((f) => [f.field, f.filename, f.mimetype])).toEqual([
      ['attachment[]', 'atestado.pdf', 'application/pdf'],
      ['attachment[]', 'foto.png', 'image/png'],
    ]);
    expect(req.files[0]!.content.equals(pdf)).toBe(true);
    expect(req.files[1]!.content.equals(png)).toBe(true);
  });

  it('keeps a path prefix of the base URL', async () => {
    handler = ok(dept);
    const { client } = makeClient({ baseUrl: `${baseUrl}/api/` });
    await client.listDepartments();
    expect(seen[0]!.url).toBe('/api/customer/v2/department');
  });
});

describe('when the API fails transiently', () => {
  it.each([
    ['a generic 403', fail(403, 'forbidden'), 'forbidden'],
    ['a 500', fail(500, 'internal'), 'server_error'],
    [
      'a 503 without an envelope',
      (_r: FastifyRequest, reply: FastifyReply) => reply.code(503).type('text/html').send('<h1>down</h1>'),
      'server_error',
    ],
    ['a dropped connection', drop, 'network'],
  ])('retries %s with backoff, then succeeds', async (_label, failure, reason) => {
    handler = sequence(failure, failure, (_r, reply) => reply.type('application/json').send(DEPT_BODY));
    const { client, delays, events, limiter } = makeClient();
    await expect(client.listDepartments()).resolves.toEqual(dept);
    expect(seen).toHaveLength(3);
    // Full jitter with random()=0.5: half of 500 ms, then half of 1000 ms.
    expect(delays).toEqual([250, 500]);
    expect(events.filter((x) => x.hook === 'retry').map((x) => x.e)).toEqual([
      { endpoint: 'department', attempt: 1, delayMs: 250, reason },
      { endpoint: 'department', attempt: 2, delayMs: 500, reason },
    ]);
    expect(limiter).toMatchObject({ acquired: 3, released: 3, inFlight: 0 });
  });

  it('retries a timeout, then succeeds', async () => {
    handler = sequence(async (_r, reply) => {
      await new Promise((r) => setTimeout(r, 1_000));
      return reply.send({ data: dept });
    }, ok(dept));
    const { client, events } = makeClient({ timeoutMs: 150 });
    await expect(client.listDepartments()).resolves.toEqual(dept);
    expect(seen).toHaveLength(2);
    const responses = events.filter((x) => x.hook === 'response').map((x) => x.e);
    expect(responses[0]).toMatchObject({ status: 'timeout', code: 'timeout', attempt: 1 });
    expect(responses[1]).toMatchObject({ status: 200, attempt: 2 });
  });

  it('gives up after maxAttempts with the last error', async () => {
    handler = sequence(fail(500, 'internal', 'still broken'));
    const { client, delays } = makeClient({ maxAttempts: 3 });
    const err = await rejection(client.listDepartments());
    expect(err).toMatchObject({ kind: 'server_error' });
    expect(err.message).toBe('department: 500 internal: still broken');
    expect(isPermanent(err)).toBe(false);
    expect(seen).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('honours a per-call maxAttempts and stops waiting when the caller aborts', async () => {
    handler = sequence(fail(500, 'internal'));
    const { client } = makeClient();
    await expect(client.listDepartments(undefined, { maxAttempts: 1 })).rejects.toMatchObject({
      kind: 'server_error',
    });
    expect(seen).toHaveLength(1);

    const controller = new AbortController();
    const reason = new Error('shutting down');
    const aborting = makeClient({
      sleep: async (_ms, signal) => {
        controller.abort(reason);
        if (signal?.aborted) throw signal.reason;
      },
    });
    await expect(aborting.client.listDepartments(undefined, { signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(seen).toHaveLength(2);
  });
});

describe('when the API answers 429', () => {
  it('waits Retry-After seconds, tells the limiter, and resumes', async () => {
    handler = sequence(
      (_r, reply) =>
        reply
          .code(429)
          .header('retry-after', '3')
          .send({ error: { code: 'too_many', message: 'slow down' } }),
      ok(dept),
    );
    const { client, delays, events, limiter } = makeClient();
    await expect(client.listDepartments()).resolves.toEqual(dept);
    expect(delays).toEqual([3000]);
    expect(limiter.rateLimited).toEqual([3000]);
    expect(events.filter((x) => x.hook === 'rateLimited').map((x) => x.e)).toEqual([
      { endpoint: 'department', retryAfterMs: 3000 },
    ]);
    expect(events.find((x) => x.hook === 'retry')!.e).toMatchObject({
      reason: 'rate_limited',
      delayMs: 3000,
    });
  });

  it('reads Retry-After as an HTTP date', async () => {
    const now = Date.parse('2024-05-01T12:00:00Z');
    handler = sequence(
      (_r, reply) => reply.code(429).header('retry-after', 'Wed, 01 May 2024 12:00:07 GMT').send(''),
      ok(dept),
    );
    const { client, delays } = makeClient({ now: () => now });
    await client.listDepartments();
    expect(delays).toEqual([7000]);
  });

  it('does not spend the transient-failure budget on 429s', async () => {
    const limited = (_r: FastifyRequest, reply: FastifyReply) =>
      reply.code(429).header('retry-after', '1').send('');
    handler = sequence(limited, limited, limited, limited, ok(dept));
    const { client } = makeClient({ maxAttempts: 2 });
    await expect(client.listDepartments()).resolves.toEqual(dept);
    expect(seen).toHaveLength(5);
  });

  it('throws rate_limited at once when retryRateLimited is false', async () => {
    handler = (_r, reply) => reply.code(429).header('retry-after', '2').send('');
    const { client, delays } = makeClient({ retryRateLimited: false });
    const err = await rejection(client.listDepartments());
    expect(err).toMatchObject({ kind: 'rate_limited' });
    expect((err as ApiError).retryAfterMs).toBe(2000);
    expect(delays).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('retries a write on 429, which the API rejected before acting', async () => {
    handler = sequence(
      (_r, reply) => reply.code(429).header('retry-after', '1').send(''),
      (_r, reply) => reply.code(201).send({ data: { id: 5 } }),
    );
    const { client } = makeClient();
    await expect(client.createCostCenter({ name: 'CC' })).resolves.toEqual({ id: 5 });
    expect(seen).toHaveLength(2);
  });
});

describe('failures that are never retried', () => {
  it('does not retry 401', async () => {
    handler = sequence(fail(401, 'invalid_service_token', 'bad token'));
    const { client, delays } = makeClient();
    const err = await rejection(client.listDepartments());
    expect(err).toMatchObject({ kind: 'invalid_service_token' });
    expect(isPermanent(err)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('does not retry 404', async () => {
    handler = sequence(fail(404, 'point_not_found'));
    const { client } = makeClient();
    await expect(client.getAuditPhoto(5)).rejects.toMatchObject({ kind: 'point_not_found', status: 404 });
    expect(seen).toHaveLength(1);
  });

  it('does not retry a write after a 500 or a dropped connection (it may have been applied)', async () => {
    const { client } = makeClient();
    handler = sequence(fail(500, 'internal'));
    await expect(client.createDepartment({ description: 'x' })).rejects.toMatchObject({
      kind: 'server_error',
    });
    expect(seen).toHaveLength(1);
    handler = drop;
    const err = await rejection(
      client.registerPoint({ national_registry: '01234567890', datetime: '2024-01-02 08:00:00' }),
    );
    expect(err).toMatchObject({ kind: 'network' });
    expect((err as ApiError).mayHaveReachedServer).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it('retries a write whose connection was refused (it never reached the server)', async () => {
    const port = await closedPort();
    const { client, delays } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 3 });
    const err = await rejection(client.createDepartment({ description: 'x' }));
    expect(err).toMatchObject({ kind: 'network' });
    expect((err as ApiError).mayHaveReachedServer).toBe(false);
    expect(err.message).toMatch(/^POST department: network: could not connect \(ECONNREFUSED/);
    expect(delays).toHaveLength(2);
  });

  it('does not retry a response that breaks the spec, and names the endpoint and field', async () => {
    const day = (datetime: string) => ({
      date: '2024-01-02',
      shift: '08-17',
      worked_time: '08:00:00',
      points: [
        {
          point_id: 1,
          datetime: '2024-01-02 08:00:00',
          hour: '08:00',
          method: 'x',
          origin: 'Web',
          is_adjusted: false,
          adjustment_reason: null,
          adjusted_by: null,
          accuracy_meters: 1,
          geolocation: { lat: 0, lng: 0 },
          address: '',
          has_audit_photo: false,
        },
        {
          point_id: 2,
          datetime,
          hour: '12:00',
          method: 'x',
          origin: 'Web',
          is_adjusted: false,
          adjustment_reason: null,
          adjusted_by: null,
          accuracy_meters: 1,
          geolocation: { lat: 0, lng: 0 },
          address: '',
          has_audit_photo: false,
        },
      ],
    });
    const good = { ...collaborator, days: [day('2024-01-02 12:00:00')] };
    const bad = { ...collaborator, days: [day('02/01/2024 12:00')] };
    handler = ok([good, good, good, bad], { begin_date: '2024-01-01', end_date: '2024-01-31' });
    const { client } = makeClient();
    const err = await rejection(
      client.getPointsFromPeriod({ beginDate: '2024-01-01', endDate: '2024-01-31' }),
    );
    expect(err).toMatchObject({ kind: 'response_invalid' });
    expect(err.message).toMatch(
      /^point\/getFromPeriod: data\[3\]\.days\[0\]\.points\[1\]\.datetime: expected a date-time/,
    );
    expect(isPermanent(err)).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('retries a 200 that is not JSON (a proxy page), like a server error', async () => {
    handler = sequence(
      (_r, reply) => reply.type('text/html').send('<html>login</html>'),
      ok([{ id: 1, name: 'Matriz' }]),
    );
    const { client, delays } = makeClient();
    expect(await client.listUnits()).toEqual([{ id: 1, name: 'Matriz' }]);
    expect(delays).toHaveLength(1);
  });

  it('gives up on a 200 that is never JSON with a retryable response_not_json', async () => {
    handler = (_r, reply) => reply.type('text/html').send('<html>login</html>');
    const { client, events } = makeClient();
    const err = await rejection(client.listUnits());
    expect(err).toMatchObject({ kind: 'response_not_json' });
    expect(isPermanent(err)).toBe(false);
    expect(events.filter((e) => e.hook === 'request')).toHaveLength(4);
  });

  it('keeps the code of an error envelope whatever its other keys hold', async () => {
    handler = (_r, reply) =>
      reply
        .code(422)
        .send({ error: { code: 'date_range_exceeded', message: null }, payload_data_required: null });
    const { client } = makeClient();
    expect(
      await rejection(client.getTardiness({ beginDate: '2024-01-01', endDate: '2024-03-01' })),
    ).toMatchObject({ kind: 'date_range_exceeded' });
  });
});

describe('stream', () => {
  const people = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      national_registry: String(10_000_000_000 + i),
      registration_number: String(i),
      email: `p${i}@x.com`,
      name: `Pessoa ${i}`,
      occupation: 'o',
      department: 'd',
      team: null,
      business_unit: 'b',
      admission_date: '2020-01-01',
      pis: '1',
      company: { name: 'C', trading_name: 'C', national_registry: '11222333000181' },
    }));
  const collect = async <T>(gen: AsyncIterable<T>) => {
    const out: T[] = [];
    for await (const x of gen) out.push(x);
    return out;
  };

  it('hands over every element validated, then checks meta, holding the limiter until the body ends', async () => {
    handler = ok(people(3));
    const { client, limiter, events } = makeClient();
    const seen = [];
    for await (const e of client.stream('collaborator', {})) {
      expect(limiter.inFlight).toBe(1);
      seen.push(e);
    }
    expect(seen.map((e) => e.ok && e.value.national_registry)).toEqual(
      people(3).map((p) => p.national_registry),
    );
    expect(seen.map((e) => e.index)).toEqual([0, 1, 2]);
    expect(limiter).toMatchObject({ acquired: 1, released: 1, inFlight: 0 });
    expect(events.find((e) => e.hook === 'response')?.e).toMatchObject({
      status: 200,
      endpoint: 'collaborator',
    });
  });

  it('reports an element that breaks its schema with its path and index, and goes on', async () => {
    const list: Record<string, unknown>[] = people(3);
    list[1] = { ...list[1], admission_date: '2020-13-45' };
    handler = ok(list);
    const { client } = makeClient();
    const seen = await collect(client.stream('collaborator', {}));
    expect(seen.map((e) => e.ok)).toEqual([true, false, true]);
    const bad = seen[1]!;
    expect(!bad.ok && bad.error.fieldPath).toBe('data[1].admission_date');
    expect(!bad.ok && bad.raw).toEqual(list[1]);
  });

  it('retries an answer that fails before its first element, and fails one cut after it', async () => {
    const body = JSON.stringify({
      data: people(50),
      meta: { begin_date: '2024-01-01', end_date: '2024-01-31' },
    });
    let calls = 0;
    handler = (req, reply) => {
      calls++;
      if (calls === 1) return reply.type('text/html').send('<html>busy</html>');
      reply.hijack();
      req.raw.socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      req.raw.socket.end(body.slice(0, body.length / 2));
    };
    const { client, limiter } = makeClient();
    const seen: unknown[] = [];
    const err = await rejection(
      (async () => {
        for await (const e of client.stream('point/getFromPeriod', {
          begin_date: '2024-01-01',
          end_date: '2024-01-31',
        }))
          seen.push(e);
      })(),
    );
    expect(calls).toBe(2);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(50);
    expect(isPermanent(err)).toBe(false);
    expect(limiter.inFlight).toBe(0);
  });

  it('releases the limiter when the consumer stops early', async () => {
    handler = ok(people(200));
    const { client, limiter } = makeClient();
    for await (const e of client.stream('collaborator', {})) if (e.index === 3) break;
    expect(limiter).toMatchObject({ acquired: 1, released: 1, inFlight: 0 });
  });

  it('maps an error status like request() does, retrying what is transient', async () => {
    handler = sequence(fail(500, 'boom'), fail(401, 'invalid_service_token'));
    const { client, delays } = makeClient();
    expect(await rejection(collect(client.stream('collaborator', {})))).toMatchObject({
      kind: 'invalid_service_token',
    });
    expect(delays).toHaveLength(1);
  });

  it('rejects meta that breaks the spec once the body has ended', async () => {
    handler = ok(people(1), { begin_date: 5 });
    const { client } = makeClient();
    const err = await rejection(
      collect(client.stream('collaborator/totalHours', { begin_date: '2024-01-01', end_date: '2024-01-31' })),
    );
    expect(err).toMatchObject({ kind: 'response_invalid' });
  });
});

describe('error mapping (spec §7)', () => {
  const rows = [
    ...API_ERROR_CODES.map((code) => ({ status: API_ERRORS[code].status, code, kind: code as string })),
    { status: 400, code: 'bad_syntax', kind: 'bad_request' },
    { status: 403, code: 'integration_rejected', kind: 'server_error' },
    { status: 404, code: 'other_thing', kind: 'not_found_unknown' },
    { status: 502, code: 'bad_gateway', kind: 'server_error' },
  ];
  it.each(rows)('maps $status $code to its kind', async ({ status, code, kind }) => {
    handler = (_r, reply) =>
      reply.code(status).send({
        error: { code, message: `message of ${code}` },
        ...(code === 'validation_failed' ? { payload_data_required: ['name', 'email'] } : {}),
      });
    const { client } = makeClient({ maxAttempts: 1 });
    const err = await rejection(client.request('collaborator'));
    expect(err).toMatchObject({ name: 'ApiError', kind, status, code, endpoint: 'collaborator' });
    expect(err.message).toBe(`collaborator: ${status} ${code}: message of ${code}`);
    if (code === 'validation_failed') {
      expect(err).toMatchObject({ kind: 'validation_failed' });
      expect((err as ApiError).payloadDataRequired).toEqual(['name', 'email']);
    }
  });
});

describe('hooks and limiter', () => {
  it('reports each attempt with status, latency and bytes, and acquires/releases once per attempt', async () => {
    handler = sequence(fail(500, 'internal'), (_r, reply) => reply.type('application/json').send(DEPT_BODY));
    const { client, events, limiter } = makeClient();
    const res = await client.request('department');
    expect(res).toMatchObject({ status: 200, data: dept, bytes: Buffer.byteLength(DEPT_BODY) });
    expect(events.map((x) => x.hook)).toEqual(['request', 'response', 'retry', 'request', 'response']);
    const [r1, r2] = events.filter((x) => x.hook === 'response').map((x) => x.e);
    expect(r1).toMatchObject({
      endpoint: 'department',
      method: 'GET',
      status: 500,
      attempt: 1,
      code: 'internal',
    });
    expect(r2).toMatchObject({
      endpoint: 'department',
      method: 'GET',
      status: 200,
      attempt: 2,
      bytes: Buffer.byteLength(DEPT_BODY),
    });
    expect(r2!.durationMs).toBeGreaterThan(0);
    expect(r1!.bytes).toBeGreaterThan(0);
    expect(limiter).toMatchObject({ acquired: 2, released: 2, inFlight: 0 });
  });

  it('releases the limiter slot when an attempt fails for good', async () => {
    handler = drop;
    const { client, limiter } = makeClient({ maxAttempts: 2 });
    await expect(client.listUnits()).rejects.toMatchObject({ kind: 'network' });
    expect(limiter).toMatchObject({ acquired: 2, released: 2, inFlight: 0 });
  });

  it('survives a hook that throws', async () => {
    handler = ok(dept);
    const { client } = makeClient({
      hooks: {
        onResponse: () => {
          throw new Error('metrics down');
        },
      },
    });
    await expect(client.listDepartments()).resolves.toEqual(dept);
  });
});

describe('maxResponseBytes', () => {
  const big = JSON.stringify({
    data: Array.from({ length: 2000 }, (_, i) => ({ id: i, description: 'x'.repeat(50) })),
  });

  it('stops reading a body announced larger than the limit', async () => {
    handler = (_r, reply) => reply.type('application/json').send(big);
    const { client } = makeClient({ maxResponseBytes: 10_000 });
    const err = await rejection(client.listDepartments());
    expect(err).toMatchObject({ kind: 'response_too_large' });
    expect(err.message).toBe('department: 200 response_too_large: the response body exceeds 10000 bytes');
    expect(seen).toHaveLength(1);
  });

  it('stops reading a chunked body once it passes the limit', async () => {
    handler = (_r, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 200; i++) reply.raw.write(big.slice(i * 1000, (i + 1) * 1000));
      reply.raw.end(big.slice(200_000));
    };
    const { client, events } = makeClient({ maxResponseBytes: 20_000 });
    await expect(client.listDepartments()).rejects.toMatchObject({ kind: 'response_too_large' });
    const response = events.find((x) => x.hook === 'response')!.e;
    expect(response).toMatchObject({ status: 200, code: 'response_too_large' });
    expect(response.bytes as number).toBeGreaterThan(20_000);
    expect(response.bytes as number).toBeLessThan(big.length);
  });
});

describe('the token', () => {
  it('never appears in an error, a hook event or a log line, even when the server echoes it', async () => {
    handler = (req, reply) =>
      reply.code(401).send({
        error: {
          code: 'invalid_service_token',
          message: `token ${String(req.headers.apiservicetoken)} rejected`,
        },
      });
    const { client, events } = makeClient();
    const err = await rejection(client.listDepartments());
    expect(err.message).toBe('department: 401 invalid_service_token: token [REDACTED] rejected');

    const port = await closedPort();
    const refused = makeClient({ baseUrl: `http://127.0.0.1:${port}`, maxAttempts: 1 });
    const netErr = await rejection(refused.client.listDepartments());

    const lines: string[] = [];
    const log = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    // No registerSecret here: the client itself must keep the token out.
    log.error({ err }, 'request failed');
    log.error({ err: netErr }, 'request failed');
    const everything = [
      lines.join(''),
      JSON.stringify(events),
      JSON.stringify(refused.events),
      err.stack,
      netErr.stack,
    ].join('\n');
    expect(everything).not.toContain(TOKEN);
    expect(lines).toHaveLength(2);
  });

  it('refuses to build a client without one, or with a bad base URL', () => {
    expect(() => new ApiClient({ baseUrl, token: '' })).toThrow(/token is empty/);
    expect(() => new ApiClient({ baseUrl: 'ftp://x', token: TOKEN })).toThrow(
      /baseUrl must be an http\(s\) URL/,
    );
  });
});

describe('typed reads', () => {
  it('returns validated data for each shape and routes to the right path', async () => {
    handler = (req, reply) => {
      const path = req.url.split('?')[0];
      if (path === '/customer/v2/collaborator') return reply.send({ data: [collaborator] });
      if (path === '/customer/v2/economic-group')
        return reply.send({ data: [{ ...companyBlock, is_headquarter: true }] });
      if (path === '/customer/v2/overtime') {
        return reply.send({
          data: [
            {
              ...collaborator,
              regime: 'BH',
              total_overtime: '01:00:00',
              missing_hours: '00:00:00',
              interval_hours: '01:00:00',
              normal_hours: '08:00:00',
              day_balance: '01:00:00',
              accumulated_balance: '-120:30:00',
              credit: '10:00:00',
              debt: '-130:30:00',
            },
          ],
          meta: { date: '2024-01-02' },
        });
      }
      if (path === '/customer/v2/company') {
        const full = {
          ...companyBlock,
          cei: null,
          caepf: null,
          cno: null,
          address: 'R',
          address_number: '1',
          complement: '',
          neighborhood: 'C',
          zip_code: '01000000',
          phone: '1100000000',
          email: 'x@acme.test',
        };
        return reply.send({
          data: (req.query as Record<string, string>).include_branches === '1' ? [full, full] : full,
        });
      }
      return reply.code(404).send({ error: { code: 'route', message: path } });
    };
    const { client } = makeClient();
    expect(await client.listCollaborators()).toEqual([collaborator]);
    expect((await client.getEconomicGroup())[0]!.is_headquarter).toBe(true);
    expect(
      (await client.getOvertime({ date: '2024-01-02', nationalRegistry: '01234567890' }))[0]!.regime,
    ).toBe('BH');
    expect(seen[2]!.query).toEqual({ date: '2024-01-02', national_registry: '01234567890' });
    expect((await client.getCompany()).national_registry).toBe('11222333000181');
    expect(await client.listGroupCompanies()).toHaveLength(2);
    expect(seen[4]!.query).toEqual({ include_branches: '1' });
  });

  it('rejects a non-spec 404 of an unknown route as ApiError (not retried)', async () => {
    handler = (_r, reply) => reply.code(404).send('Not Found');
    const { client } = makeClient();
    await expect(client.listBarriers()).rejects.toMatchObject({ kind: 'not_found_unknown' });
    expect(seen).toHaveLength(1);
  });

  it('throws timeout once every attempt timed out', async () => {
    handler = async (_r, reply) => {
      await new Promise((r) => setTimeout(r, 600));
      return reply.send({ data: dept });
    };
    const { client } = makeClient({ timeoutMs: 100, maxAttempts: 2 });
    const err = await rejection(client.listDepartments());
    expect(err).toMatchObject({ kind: 'timeout' });
    expect(err.message).toBe('department: timeout: no complete response within 100 ms');
  });
});
