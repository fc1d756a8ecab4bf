import { describe, expect, it } from 'vitest';
import { DriftLabels, MAX_DRIFT_SERIES } from '../src/telemetry/drift-labels.js';
import { metricsRegistry, recordSchemaDrift } from '../src/telemetry/metrics.js';

/** The label sets of punchline_schema_drift_total exported so far. */
async function driftSeries(): Promise<Record<string, string>[]> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find(
    (m) => m.name === 'punchline_schema_drift_total',
  );
  return ((metric?.values ?? []) as { labels: Record<string, string> }[]).map((v) => v.labels);
}

describe('schema drift as metric labels', () => {
  it('exports a bounded number of series however many new values an API sends, the rest as "other"', async () => {
    for (let i = 0; i < 500; i++)
      recordSchemaDrift({ kind: 'new_value', field: 'point.origin', value: `origem_${i}` });
    for (let i = 0; i < 500; i++)
      recordSchemaDrift({ kind: 'unknown_field', field: `days[].extra_${i}`, value: '' });
    const series = await driftSeries();
    expect(series.length).toBeLessThanOrEqual(MAX_DRIFT_SERIES + 2);
    expect(series).toContainEqual({ kind: 'new_value', field: 'other', value: 'other' });
    expect(series).toContainEqual({ kind: 'unknown_field', field: 'other', value: '' });
  });

  it('never makes a label of a CPF, a long number or free text', () => {
    const labels = new DriftLabels();
    for (const value of [
      '52998224725',
      '529.982.247-25',
      'origin 123456',
      'a@b.c',
      "'; DROP",
      'x'.repeat(65),
      '',
    ]) {
      const got = labels.of({ kind: 'new_value', field: 'point.origin', value });
      expect(got.value, value).toBe(value === '' ? '' : 'other');
    }
    expect(labels.of({ kind: 'unknown_field', field: '52998224725', value: '' }).field).toBe('other');
  });

  it('keeps the words a source-owned list plausibly grows by, and field paths', () => {
    const labels = new DriftLabels();
    for (const value of ['Quiosque', 'Em análise', 'BH Semestral', 'app-v2']) {
      expect(labels.of({ kind: 'new_value', field: 'adjustment.status', value })).toEqual({
        kind: 'new_value',
        field: 'adjustment.status',
        value,
      });
    }
    expect(labels.of({ kind: 'unknown_field', field: 'days[].points[].device_id', value: '' }).field).toBe(
      'days[].points[].device_id',
    );
  });

  it('keeps a series it has already exported once the bound is reached', () => {
    const labels = new DriftLabels(2);
    expect(labels.of({ kind: 'new_value', field: 'f', value: 'a' }).value).toBe('a');
    expect(labels.of({ kind: 'new_value', field: 'f', value: 'b' }).value).toBe('b');
    expect(labels.of({ kind: 'new_value', field: 'f', value: 'c' }).value).toBe('other');
    expect(labels.of({ kind: 'new_value', field: 'f', value: 'a' }).value).toBe('a');
  });
});
