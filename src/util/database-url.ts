/** Connection strings (Postgres, Redis). */
import { userInfo } from 'node:os';

/**
 * `databaseUrl` with the operating-system user filled in when it names none, as libpq does
 * (node-pg only looks at the USER variable, unset in some shells and containers).
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

/**
 * Where the user information of `url` lies as written: from `scheme://` to the last `@`. URL
 * parsers end the authority at the first `/`, `?` or `#`, so a password holding one unencoded
 * would be read as host or path, and shown; up to the last `@` masks too much at worst.
 */
function userinfoSpan(url: string): { start: number; end: number } | undefined {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  const at = url.lastIndexOf('@');
  if (!scheme || at < scheme[0].length) return undefined;
  return { start: scheme[0].length, end: at };
}

/** `password=` (and `sslpassword=`) query parameters, which libpq accepts too. */
const QUERY_PASSWORD = /([?&](?:ssl)?password=)[^&#]*/gi;

/**
 * The URL with its password masked, for messages: `scheme://user:***@host/...`. Works on the
 * text as written, so a password holding an unencoded `/`, `?`, `#` or `@` is masked whole
 * too; text that is no URL and holds no `@` is returned as it is.
 */
export function redactUrl(url: string): string {
  const span = userinfoSpan(url);
  if (!span) return url.includes('@') ? '(unparseable URL)' : url.replace(QUERY_PASSWORD, '$1***');
  const userinfo = url.slice(span.start, span.end);
  const colon = userinfo.indexOf(':');
  const shown = colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:***`;
  return `${url.slice(0, span.start)}${shown}@${url.slice(span.end + 1).replace(QUERY_PASSWORD, '$1***')}`;
}

/**
 * Why the user information of `url` cannot be read as its author meant, or undefined: a `/`,
 * `?` or `#` in it not percent-encoded (the URL would be read with another host). The reason
 * never quotes the password.
 */
export function userinfoProblem(url: string): string | undefined {
  const span = userinfoSpan(url);
  if (!span) return undefined;
  const bad = [...new Set(url.slice(span.start, span.end).match(/[/?#]/g) ?? [])];
  if (bad.length === 0) return undefined;
  const codes: Record<string, string> = { '/': '%2F', '?': '%3F', '#': '%23' };
  return `its user name or password holds ${bad.map((c) => `"${c}"`).join(', ')} not percent-encoded (write ${bad.map((c) => `${c} as ${codes[c]}`).join(', ')})`;
}

/** The password of a connection URL, decoded, or '' when it has none. */
export function passwordOf(url: string): string {
  const span = userinfoSpan(url);
  const userinfo = span ? url.slice(span.start, span.end) : '';
  const colon = userinfo.indexOf(':');
  if (colon < 0) return '';
  const raw = userinfo.slice(colon + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
