/**
 * Which `Host` the ops server answers for. A DNS rebinding attack points a name the attacker
 * owns at 127.0.0.1, so a page of that name reaches the port, same-origin by the browser's rules,
 * and sends `Host: rebind.example` with a matching `Origin`. Answering only names the operator
 * chose (loopback, the bound address, OPS_ALLOWED_HOSTS) closes that door, whatever the Origin.
 */

/** The loopback names: every ops server answers for them. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'] as const;
/** Addresses that mean "every interface": no name of their own. */
const WILDCARDS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '']);

/** True for a loopback address or name (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** The names served when binding `bindHost`, plus `extra` (lower-cased, IPv6 without brackets). */
export function servedHosts(bindHost: string, extra: readonly string[]): ReadonlySet<string> {
  const bound = bindHost.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return new Set([
    ...LOOPBACK_NAMES,
    ...(WILDCARDS.has(bound) ? [] : [bound]),
    ...extra.map((h) => h.toLowerCase()),
  ]);
}

/** The host name of a `Host` header, without its port, lower-cased; undefined when absent or malformed. */
export function hostOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/i.exec(header.trim());
  const name = m?.[1] ?? m?.[2];
  return name?.toLowerCase().replace(/\.$/, '');
}
