/** Connection strings (Postgres, Redis). */
import { userInfo } from 'node:os';

/**
 * `databaseUrl` with the operating-system user filled in when it names none, as libpq
 * does (node-pg only looks at the USER variable, which is unset in some shells and
 * containers).
 */
export function withDefaultUser(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    if (u.username) return databaseUrl;
    u.username = encodeURIComponent(userInfo().username);
    return u.toString();
  } catch {
    return databaseUrl;
  }
}

/** The URL with its password masked, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** The password of a connection URL, decoded, or '' when it has none or does not parse. */
export function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}
