/**
 * Who may change the queues through the dashboard. Reading is open to whoever reaches
 * the ops port (it binds loopback by default); every request that could change
 * something — retry, promote, clean, remove, pause, add — needs the operator credential,
 * and without a configured credential nobody may write at all. This is enforced here,
 * on the server, for every non-reading method under the dashboard's path: bull-board's
 * read-only flag only hides the buttons and guards some of its routes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { DashboardCredential } from '../config.js';

/** Methods that never change anything (bull-board reads with GET only). */
const READING_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Realm of the basic-auth challenge, shown by browsers in their login prompt. */
export const DASHBOARD_REALM = 'punchline dashboard';

/** What a request to the dashboard carries that matters for access. */
export interface DashboardRequest {
  /** HTTP method. */
  readonly method: string;
  /** `Authorization` header, if any. */
  readonly authorization?: string;
  /** `Origin` header, if any (browsers send it with every write). */
  readonly origin?: string;
  /** `Host` header. */
  readonly host?: string;
}

/** The verdict on one request: allowed, or refused with a status and a one-line reason. */
export type DashboardDecision =
  | { readonly allow: true }
  | { readonly allow: false; readonly status: 401 | 403; readonly reason: string; readonly challenge?: string };

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Compares secrets in constant time (digests first, so lengths do not leak either). */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** True when `authorization` carries `credential`: basic auth with its user and token, or a bearer token. */
export function carriesCredential(authorization: string | undefined, credential: DashboardCredential): boolean {
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
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

/** Decides whether `req` may go on to the dashboard (pure; the server applies it). */
export function decideDashboardAccess(req: DashboardRequest, credential: DashboardCredential | undefined): DashboardDecision {
  if (READING_METHODS.has(req.method.toUpperCase())) return { allow: true };
  if (!credential) {
    return {
      allow: false,
      status: 403,
      reason: 'the dashboard is read-only: set OPS_DASHBOARD_TOKEN or OPS_DASHBOARD_TOKEN_FILE on the worker to allow write actions',
    };
  }
  // A page of another site must not borrow the operator's browser login (basic auth is resent by browsers).
  if (crossOrigin(req.origin, req.host)) {
    return { allow: false, status: 403, reason: 'write actions are refused from pages of another origin' };
  }
  if (!carriesCredential(req.authorization, credential)) {
    return {
      allow: false,
      status: 401,
      reason: 'write actions need the operator credential (basic auth with OPS_DASHBOARD_USER and OPS_DASHBOARD_TOKEN, or a bearer token)',
      challenge: `Basic realm="${DASHBOARD_REALM}", charset="UTF-8"`,
    };
  }
  return { allow: true };
}
