/**
 * The Prometheus alert rules of deploy/prometheus/ checked and unit-tested by Prometheus's
 * own `promtool` (Debian package `prometheus`; CI installs it): every alert is shown
 * firing and not firing on synthetic series in alerts.test.yml.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { debianTool } from './support/debian-tools.js';

const DIR = fileURLToPath(new URL('../deploy/prometheus/', import.meta.url));
const run = promisify(execFile);

const promtool = debianTool('promtool');

describe.skipIf(promtool.skip)('deploy/prometheus/alerts.yml under promtool', () => {
  it('is valid Prometheus rule syntax (promtool check rules)', async () => {
    const { stdout } = await run(promtool.need(), ['check', 'rules', 'alerts.yml'], { cwd: DIR });
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('passes its unit tests (promtool test rules alerts.test.yml)', async () => {
    const result = await run(promtool.need(), ['test', 'rules', 'alerts.test.yml'], { cwd: DIR }).catch(
      (err: { stdout?: string; stderr?: string }) => ({
        stdout: `${err.stdout ?? ''}${err.stderr ?? ''}`,
        failed: true,
      }),
    );
    expect(result.stdout).toMatch(/SUCCESS/);
    expect('failed' in result, result.stdout).toBe(false);
  });
});

describe('deploy/prometheus/alerts.test.yml', () => {
  it('shows every alert of alerts.yml both firing and not firing', () => {
    const rules = parseYaml(readFileSync(join(DIR, 'alerts.yml'), 'utf8')) as {
      groups: { rules: { alert?: string }[] }[];
    };
    const tests = parseYaml(readFileSync(join(DIR, 'alerts.test.yml'), 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const alerts = rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert);
      expect(
        mine.some((c) => c.exp_alerts.length > 0),
        `${alert} firing`,
      ).toBe(true);
      expect(
        mine.some((c) => c.exp_alerts.length === 0),
        `${alert} not firing`,
      ).toBe(true);
    }
  });
});
