import { describe, expect, it } from 'vitest';
import {
  carriesCredential,
  dashboardRouteKind,
  decideDashboardAccess,
} from '../src/http/dashboard-access.js';

const CREDENTIAL = { user: 'operator', token: 'tok:with-colon-0123456789' };
const basic = (user: string, token: string) => `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`;

describe('dashboardRouteKind', () => {
  it('calls a route reading only when every method it was registered with reads', () => {
    expect(dashboardRouteKind('GET')).toBe('read');
    expect(dashboardRouteKind('HEAD')).toBe('read');
    expect(dashboardRouteKind(['GET', 'HEAD'])).toBe('read');
    expect(dashboardRouteKind('get')).toBe('read');
    for (const methods of ['PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS', ['GET', 'PUT'], []]) {
      expect(dashboardRouteKind(methods), JSON.stringify(methods)).toBe('write');
    }
  });
});

describe('decideDashboardAccess', () => {
  it('lets every read through when no credential is configured', () => {
    expect(decideDashboardAccess({ kind: 'read' }, undefined)).toEqual({ allow: true });
  });

  it('asks for the credential before showing anything when one is configured, and lets the operator read', () => {
    for (const authorization of [undefined, basic('operator', 'tok'), 'Bearer nope']) {
      expect(decideDashboardAccess({ kind: 'read', authorization }, CREDENTIAL)).toMatchObject({
        allow: false,
        status: 401,
        challenge: expect.stringMatching(/^Basic realm=/),
      });
    }
    expect(
      decideDashboardAccess({ kind: 'read', authorization: basic('operator', CREDENTIAL.token) }, CREDENTIAL),
    ).toEqual({ allow: true });
    expect(
      decideDashboardAccess({ kind: 'read', authorization: `Bearer ${CREDENTIAL.token}` }, CREDENTIAL),
    ).toEqual({ allow: true });
  });

  it('refuses every write with 403 when no credential is configured, whatever the request carries', () => {
    const d = decideDashboardAccess(
      { kind: 'write', authorization: basic('operator', CREDENTIAL.token) },
      undefined,
    );
    expect(d).toMatchObject({
      allow: false,
      status: 403,
      reason: expect.stringMatching(/read-only: set OPS_DASHBOARD_TOKEN/),
    });
  });

  it('asks for the credential with 401 and a basic-auth challenge when it is missing or wrong', () => {
    for (const authorization of [
      undefined,
      '',
      'Basic',
      basic('operator', 'tok'),
      'Bearer tok',
      'Digest x',
    ]) {
      const d = decideDashboardAccess({ kind: 'write', authorization, host: 'h:1' }, CREDENTIAL);
      expect(d).toMatchObject({
        allow: false,
        status: 401,
        challenge: expect.stringMatching(/^Basic realm=/),
      });
    }
  });

  it('allows the operator from the same origin or a client without Origin, never from another origin', () => {
    const authorization = basic('operator', CREDENTIAL.token);
    expect(decideDashboardAccess({ kind: 'write', authorization, host: 'h:1' }, CREDENTIAL)).toEqual({
      allow: true,
    });
    expect(
      decideDashboardAccess({ kind: 'write', authorization, host: 'h:1', origin: 'http://h:1' }, CREDENTIAL),
    ).toEqual({
      allow: true,
    });
    for (const origin of ['http://other:1', 'null', 'not a url']) {
      expect(
        decideDashboardAccess({ kind: 'write', authorization, host: 'h:1', origin }, CREDENTIAL),
      ).toMatchObject({
        allow: false,
        status: 403,
      });
    }
  });
});

describe('carriesCredential', () => {
  it('splits basic auth at the first colon, so a token may hold colons', () => {
    expect(carriesCredential(basic('operator', CREDENTIAL.token), CREDENTIAL)).toBe(true);
    expect(carriesCredential(basic('operator', 'tok'), CREDENTIAL)).toBe(false);
    expect(carriesCredential(basic('', CREDENTIAL.token), CREDENTIAL)).toBe(false);
  });

  it('takes the token as a bearer token, schemes in any case', () => {
    expect(carriesCredential(`bearer ${CREDENTIAL.token}`, CREDENTIAL)).toBe(true);
    expect(carriesCredential(`Bearer ${CREDENTIAL.token}x`, CREDENTIAL)).toBe(false);
  });
});
