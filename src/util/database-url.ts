/** Postgres connection strings. */
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
