/**
 * The fields a job's log lines carry (src/runtime/job-log.ts), read from its data as it
 * is: a window job, a group-level job, a schedule tick and a job whose data is foreign.
 */
import { describe, expect, it } from 'vitest';
import { jobLogFields } from '../src/runtime/job-log.js';
import { workerName } from '../src/runtime/run-records.js';

describe('the log fields of a job', () => {
  it('name the connection, company, resource, window and worker of a window job', () => {
    const job = {
      id: 'punches.default.11222333000181.2025-03-01.2025-03-31',
      queueName: 'sync',
      data: {
        connection: 'default',
        company: '11222333000181',
        resource: 'punches',
        from: '2025-03-01',
        to: '2025-03-31',
        scoped: false,
      },
    };
    expect(jobLogFields(job, 'host-a:42')).toEqual({
      job: job.id,
      queue: 'sync',
      connection: 'default',
      company: '11222333000181',
      resource: 'punches',
      window: '2025-03-01..2025-03-31',
      worker: 'host-a:42',
    });
  });

  it('are null, not missing, where the job has none: a group walk, a schedule tick', () => {
    expect(
      jobLogFields(
        {
          id: 'companies.default',
          queueName: 'sync',
          data: { connection: 'default', resource: 'companies' },
        },
        'h:1',
      ),
    ).toMatchObject({
      company: null,
      window: null,
      resource: 'companies',
    });
    expect(
      jobLogFields(
        { id: 'tick', queueName: 'schedules', data: { connection: 'hq', kind: 'punches' } },
        'h:1',
      ),
    ).toEqual({
      job: 'tick',
      queue: 'schedules',
      connection: 'hq',
      company: null,
      resource: null,
      window: null,
      worker: 'h:1',
    });
  });

  it('take nothing but strings from the data of a foreign or broken job', () => {
    for (const data of [null, 'text', 42, { connection: 7, company: { cnpj: 1 }, from: '2025-03-01' }]) {
      expect(jobLogFields({ queueName: 'sync', data }, 'h:1')).toEqual({
        job: null,
        queue: 'sync',
        connection: null,
        company: null,
        resource: null,
        window: null,
        worker: 'h:1',
      });
    }
  });

  it('name this process by default, as sync_runs.worker does', () => {
    expect(jobLogFields({ queueName: 'sync', data: {} }).worker).toBe(workerName());
  });
});
