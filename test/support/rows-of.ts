/**
 * A resource's rows without a database (the Singer habit of testing a stream's records without a
 * destination): `rowsOf` validates an element as the engine does (the read's element schema), runs
 * the declaration's row writer into an in-memory staging, and returns the rows per table. Merge
 * semantics (keys, reconciliation, history) stay in the Postgres tests.
 */
import { ENDPOINTS, elementSchema } from '../../src/api/endpoints.js';
import type { CallTarget, ReadDeclaration, RowContext } from '../../src/resources/declaration.js';
import type { ResourceDeclaration } from '../../src/resources/index.js';
import { createLocalTimeConverter } from '../../src/util/local-time.js';

/** What a row writer is given besides the element (the engine's row context, less the element writer's memory). */
export interface RowsContext {
  /** CNPJ of the company the element was read for. */
  readonly company: string;
  /** IANA zone of the company's local date-times (default America/Sao_Paulo). */
  readonly timezone?: string;
  /** The call's target: its window, day or item. */
  readonly target?: CallTarget;
  readonly storeBinaries?: boolean;
  /** Which of the declaration's reads (default the first). */
  readonly read?: number;
}

/** The rows a declaration writes for `element`, per table (every table of the declaration, empty ones too). */
export function rowsOf(
  declaration: ResourceDeclaration,
  element: unknown,
  context: RowsContext,
): Record<string, Record<string, unknown>[]> {
  if (declaration.read === 'group') throw new TypeError('rowsOf: the group walk has no element rows');
  const read = declaration.reads[context.read ?? 0] as ReadDeclaration;
  const schema =
    typeof read.endpoint === 'string'
      ? (elementSchema(ENDPOINTS[read.endpoint]) ?? ENDPOINTS[read.endpoint].data)
      : read.endpoint.element;
  const value = schema.parse(element);
  const staged: Record<string, Record<string, unknown>[]> = {};
  const out: Record<string, (row: Record<string, unknown>) => void> = {};
  for (const spec of Object.values(declaration.tables)) {
    const rows: Record<string, unknown>[] = (staged[spec.table] = []);
    out[spec.table] = (row) => rows.push(row);
  }
  const ctx: RowContext = {
    ...(context.target ?? {}),
    company: context.company,
    toUtc: createLocalTimeConverter(context.timezone ?? 'America/Sao_Paulo'),
    storeBinaries: context.storeBinaries ?? false,
    cpfAsSent: () => null,
  };
  read.rows(value as never, out as never, ctx as never);
  return staged;
}
