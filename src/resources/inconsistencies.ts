/**
 * Inconsistencies (spec 2.10, `GET inconsistency`; nothing else in punchline calls it, so
 * the endpoint is described here). No id in the API: the window's rows are replaced,
 * each occurrence keyed by its position among the collaborator's occurrences of the day.
 * One CPF's records (a duplicate, a re-hire) are kept apart by collaborator_record.
 */
import { z } from 'zod';
import { streamEndpoint } from '../api/endpoints.js';
import {
  collaboratorBlock,
  dateString,
  durationString,
  openVocabulary,
  optionalText,
  periodMeta,
} from '../api/schemas.js';
import { durationToSeconds } from '../util/duration.js';
import { inWindow, type TableSpec } from '../warehouse/table-spec.js';
import { collaboratorRecord } from './collaborators.js';
import { omitted, person, PERSON_COLUMNS } from './column-classes.js';
import { defineResource, HORIZON_FACTS, declareRead, sequencer, windowQuery } from './declaration.js';

/** spec 2.10: one occurrence of a collaborator's day; `value` is signed, negative when short. */
const occurrence = z.object({
  date: dateString,
  type: z.string(),
  value: durationString,
  justification: optionalText,
  status: openVocabulary('inconsistency.status', ['pending', 'acknowledged']),
});

/** spec 4.1 `inconsistency`: per collaborator (spec 2.1 block), the occurrences of the period. */
export const inconsistency = streamEndpoint(
  'inconsistency',
  collaboratorBlock.extend({ occurrences: z.array(occurrence) }),
  periodMeta,
  ['begin_date', 'end_date', 'national_registry'],
);

/** One element of the answer. */
export type CollaboratorInconsistencies = z.infer<typeof inconsistency.element>;

const tables = {
  inconsistencies: {
    table: 'inconsistencies',
    key: ['company_cnpj', 'cpf', 'collaborator_record', 'occurrence_date', 'seq'],
    columns: {
      ...PERSON_COLUMNS,
      occurrence_date: 'date',
      seq: 'int4',
      inconsistency_type: 'text',
      value_seconds: 'int4',
      justification: 'text',
      status: 'text',
    },
    missing: { mode: 'delete', where: inWindow('occurrence_date') },
  },
} as const satisfies Record<string, TableSpec>;

/** `inconsistencies`: occurrences of one month window per job. */
export const inconsistencies = defineResource({
  read: 'month',
  tables,
  ...HORIZON_FACTS,
  // The labour-law mart set beside the source's own findings of a short rest, break or overtime.
  checks: [...HORIZON_FACTS.checks, 'clt_vs_source'],
  privacy: {
    inconsistencies: {
      columns: { ...person(), justification: omitted('free_text', "the collaborator's justification") },
    },
  },
  reads: [
    declareRead('month', tables, {
      endpoint: inconsistency,
      query: windowQuery,
      people: (c) => [c],
      rows(c, out, x) {
        const seq = sequencer();
        const record = collaboratorRecord(c);
        for (const o of c.occurrences) {
          out.inconsistencies({
            company_cnpj: x.company,
            cpf: c.national_registry,
            collaborator_record: record,
            occurrence_date: o.date,
            seq: seq(o.date),
            inconsistency_type: o.type,
            value_seconds: durationToSeconds(o.value),
            justification: o.justification,
            status: o.status,
          });
        }
      },
    }),
  ],
});
