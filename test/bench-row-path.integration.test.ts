import { describe, expect, it } from 'vitest';
import { fetchAnswers, measureRowPath, STAGES } from '../bench/row-path.js';

/** Rows the answers' declarations derive, counted from the bodies themselves: a work day per day, a punch per point, a balance per element. */
function expectedRows(answers: Awaited<ReturnType<typeof fetchAnswers>>): number {
  let rows = 0;
  for (const a of answers) {
    const { data } = JSON.parse(a.body.toString('utf8')) as { data: { days?: { points: unknown[] }[] }[] };
    for (const element of data)
      rows += element.days ? element.days.reduce((n, d) => n + 1 + d.points.length, 0) : 1;
  }
  return rows;
}

describe('bench/row-path.ts', () => {
  it('runs a month of punches and a day of the hour bank through every stage, staging a row for each record of the bodies', async () => {
    const answers = await fetchAnswers(40);
    expect(answers.map((a) => a.endpoint)).toEqual(['point/getFromPeriod', 'overtime']);
    expect(answers.every((a) => a.body.length > 1000)).toBe(true);

    const f = await measureRowPath(answers, 1);
    expect(f.bytes).toBe(answers[0]!.body.length + answers[1]!.body.length);
    expect(f.rows).toBe(expectedRows(answers));
    for (const stage of STAGES) expect(f.nsPerByte[stage]).toBeGreaterThan(0);
  });
});
