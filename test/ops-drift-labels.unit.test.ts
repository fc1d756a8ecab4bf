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
  it('never makes a label of a value: a new value is counted under its field only', async () => {
    recordSchemaDrift({ kind: 'new_value', field: 'point.origin' });
    const series = await driftSeries();
    expect(series).toContainEqual({ kind: 'new_value', field: 'point.origin' });
    for (const s of series) expect(Object.keys(s).sort()).toEqual(['field', 'kind']);
  });

  it('exports a bounded number of series however many new fields an API sends, the rest as "other"', async () => {
    for (let i = 0; i < 500; i++) recordSchemaDrift({ kind: 'unknown_field', field: `days[].extra_${i}` });
    const series = await driftSeries();
    expect(series.length).toBeLessThanOrEqual(MAX_DRIFT_SERIES + 1);
    expect(series).toContainEqual({ kind: 'unknown_field', field: 'other' });
  });

  it('never makes a label of a CPF, a long number, a name or other free text', () => {
    const labels = new DriftLabels();
    for (const field of [
      '52998224725',
      'x52998224725',
      '529.982.247-25',
      'Maria da Silva',
      'José',
      'a@b.c',
      "'; DROP",
      'x'.repeat(65),
      'days[].a\u0000b',
    ]) {
      expect(labels.of({ kind: 'unknown_field', field }).field, field).toBe('other');
    }
  });

  it('keeps field paths of ASCII identifiers', () => {
    const labels = new DriftLabels();
    for (const field of ['days[].points[].device_id', 'point.origin', 'selfieUrl'])
      expect(labels.of({ kind: 'unknown_field', field }).field).toBe(field);
  });

  it('keeps a series it has already exported once the bound is reached', () => {
    const labels = new DriftLabels(2);
    expect(labels.of({ kind: 'unknown_field', field: 'a' }).field).toBe('a');
    expect(labels.of({ kind: 'unknown_field', field: 'b' }).field).toBe('b');
    expect(labels.of({ kind: 'unknown_field', field: 'c' }).field).toBe('other');
    expect(labels.of({ kind: 'unknown_field', field: 'a' }).field).toBe('a');
  });
});
