import { createHash, timingSafeEqual } from 'node:crypto';
import type { DashboardCredential } from '../config.js';

/** Methods that never change anything (bull-board reads with GET only; HEAD is GET without a body). */
const READING_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** What a route of the board does: only reads, or may change the queues. */
export type DashboardRouteKind = 'read' | 'write';

/** The kind of a route by the methods it was registered with: it reads only when every one of them reads. */
export function dashboardRouteKind(methods: string | readonly string[]): DashboardRouteKind {
  const list = typeof methods === 'string' ? [methods] : methods;
  return list.length > 0 && list.every((m) => READING_METHODS.has(m.toUpperCase())) ? 'read' : 'write';
}

/** What a request to a route of the board carries that matters for access. */
export interface DashboardRequest {
  /** What the matched route does ({@link dashboardRouteKind}). */
  readonly kind: DashboardRouteKind;
  /** The `Authorization`, `Origin` (browsers send it with every write) and `Host` headers. */
  readonly authorization?: string;
  readonly origin?: string;
  readonly host?: string;
}

/** The verdict on one request: allowed, or refused with a status and a one-line reason. */
export type DashboardDecision =
  | { readonly allow: true }
  | {
      readonly allow: false;
      readonly status: 401 | 403;
      readonly reason: string;
      readonly challenge?: string;
    };

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Compares secrets in constant time (digests first, so lengths do not leak either). */
const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** True when `authorization` carries `credential`: basic auth with its user and token, or a bearer token. */
export function carriesCredential(
  authorization: string | undefined,
  credential: DashboardCredential,
): boolean {
  if (!authorization) return false;
  const [scheme, value = ''] = authorization.trim().split(/\s+/, 2);
  if (/^bearer$/i.test(scheme ?? '')) return sameSecret(value, credential.token);
  if (!/^basic$/i.test(scheme ?? '')) return false;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // Both halves are compared whatever the first gives, so timing says nothing about which was wrong.
  const userOk = sameSecret(decoded.slice(0, colon), credential.user);
  const tokenOk = sameSecret(decoded.slice(colon + 1), credential.token);
  return userOk && tokenOk;
}

/** True when the browser says the request comes from a page of another site. */
function crossOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return false;
  if (origin === 'null') return true; // an opaque origin: a sandboxed frame or a file
  return !URL.canParse(origin) || new URL(origin).host !== host;
}

/** How to present the credential, as refusals say it. */
const PRESENT = '(basic auth with OPS_DASHBOARD_USER and OPS_DASHBOARD_TOKEN, or a bearer token)';

/** Refusals: one asking for the credential (browsers show the realm in their login prompt), one not. */
const unauthorized = (reason: string): DashboardDecision => ({
  allow: false,
  status: 401,
  reason,
  challenge: 'Basic realm="punchline dashboard", charset="UTF-8"',
});
const forbidden = (reason: string): DashboardDecision => ({ allow: false, status: 403, reason });

/**
 * Decides whether `req` may go on to the matched route of the board (pure; the server applies it, on
 * the route it matched whatever form the URL took: bull-board's read-only flag only hides buttons and
 * guards some routes). Without an operator credential the board only reads, for whoever reaches the ops
 * port (loopback by default). With one, every route needs it, reads too: jobs carry their data and
 * failure reasons.
 */
export function decideDashboardAccess(
  req: DashboardRequest,
  credential: DashboardCredential | undefined,
): DashboardDecision {
  if (req.kind === 'read') {
    if (!credential || carriesCredential(req.authorization, credential)) return { allow: true };
    return unauthorized(`the dashboard shows jobs only to the operator ${PRESENT}`);
  }
  if (!credential) {
    return forbidden(
      'the dashboard is read-only: set OPS_DASHBOARD_TOKEN or OPS_DASHBOARD_TOKEN_FILE on the worker to allow write actions',
    );
  }
  // A page of another site must not borrow the operator's browser login (basic auth is resent by browsers).
  if (crossOrigin(req.origin, req.host)) {
    return forbidden('write actions are refused from pages of another origin');
  }
  if (!carriesCredential(req.authorization, credential)) {
    return unauthorized(`write actions need the operator credential ${PRESENT}`);
  }
  return { allow: true };
}
