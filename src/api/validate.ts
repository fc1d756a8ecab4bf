/**
 * Run-time validation of success envelopes (spec 1.1) against the endpoint table, with
 * errors that name the endpoint and the exact field: `point/getFromPeriod:
 * data[3].days[0].points[1].datetime: expected a date-time ...`.
 */
import type { z } from 'zod';
import type { EndpointDef } from './endpoints.js';
import { ApiError } from './errors.js';

/** Formats a zod path as `data[3].days[0].datetime`. */
export function formatPath(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

type Problem = { path: string; message: string };

/** The problems of one zod issue; a failed union reports what each branch expected. */
function problemsOf(root: string, issue: z.core.$ZodIssue, base: readonly PropertyKey[] = []): Problem[] {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branches = issue.errors
      .map((branch) => branch[0])
      .filter((i): i is z.core.$ZodIssue => i !== undefined);
    // Branches that failed at the same place read as one "a or b" message.
    if (branches.every((b) => b.path.length === 0)) {
      const messages = [...new Set(branches.map((b) => b.message))];
      return [{ path: formatPath(root, path), message: messages.join(' or ') }];
    }
    return problemsOf(root, branches[0]!, path);
  }
  return [{ path: formatPath(root, path), message: issue.message }];
}

/** Validates `value` with `schema`; throws a `response_invalid` ApiError naming the endpoint and the field. */
export function validatePart<T>(endpoint: string, root: string, schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.flatMap((i) => problemsOf(root, i));
  const first = problems[0] ?? { path: root, message: 'invalid' };
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  throw new ApiError('response_invalid', {
    endpoint,
    message: `${first.path}: ${first.message}${more}`,
    fieldPath: first.path,
    problems: problems.map((p) => `${p.path}: ${p.message}`),
  });
}

/** Validates a success body: `data` of the endpoint's shape, `meta` where it has one (spec 1.1, 1.3.1). */
export function validateEnvelope<T>(
  endpoint: string,
  def: EndpointDef,
  body: unknown,
  options: { includeBranches?: boolean } = {},
): { data: T; meta?: unknown } {
  const invalid = (fieldPath: string, message: string) =>
    new ApiError('response_invalid', { endpoint, fieldPath, message });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('(body)', '(body): expected the success envelope, an object with "data" (spec 1.1)');
  }
  if (!('data' in body)) throw invalid('data', 'data: missing from the success envelope (spec 1.1)');
  const envelope = body as Record<string, unknown>;
  const schema = options.includeBranches && def.dataWithBranches ? def.dataWithBranches : def.data;
  const data = validatePart(endpoint, 'data', schema, envelope.data) as T;
  if (def.meta === null) return 'meta' in envelope ? { data, meta: envelope.meta } : { data };
  const meta = validatePart(endpoint, 'meta', def.meta, envelope.meta);
  return { data, meta };
}
