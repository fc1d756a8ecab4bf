import type { Config } from '../config.js';
import type { QualitySettings } from './checks.js';

/**
 * Settings of a run of the checks outside a sync job (`punchline verify`), from the configuration: each
 * company's time zone (docs/configuration.md "Time zones") and the lookback horizon (SYNC_LOOKBACK_DAYS).
 */
export function qualitySettingsFromConfig(
  config: Pick<Config, 'connections' | 'apiTimezone' | 'companyTimezones' | 'syncLookbackDays'>,
): QualitySettings {
  const timeZones: Record<string, string> = { ...config.companyTimezones };
  for (const c of config.connections) Object.assign(timeZones, c.companyTimezones ?? {});
  // Companies nobody names are in their connection's zone: one connection's, else API_TIMEZONE.
  const only = config.connections.length === 1 ? config.connections[0]! : undefined;
  return {
    timeZones,
    defaultTimeZone: only?.timezone ?? config.apiTimezone,
    lookbackDays: config.syncLookbackDays,
  };
}
