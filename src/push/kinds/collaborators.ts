/**
 * spec 4.2 `POST collaborator`: one row per new collaborator of the token's company. The six
 * required ids (and the optional occupation) may be given by name. A CPF that already has an active
 * collaborator in the company (`GET collaborator`) is skipped.
 */
import type { NewCollaborator } from '../../api/client.js';
import { valuesAsBody, type Existing, type WriteKind } from '../kind.js';

/** `push collaborators`. */
export const collaborators: WriteKind<NewCollaborator> = {
  name: 'collaborators',
  endpoint: 'POST collaborator',
  summary: "creates collaborators in the token's company",
  columns: {
    name: { type: 'text', required: true, doc: 'full name' },
    national_registry: { type: 'cpf', required: true, doc: 'CPF' },
    email: { type: 'email', required: true, doc: 'e-mail' },
    birth_date: { type: 'date', required: true, doc: 'birth date' },
    begin_date: { type: 'date', required: true, doc: 'first day the collaborator punches in the service' },
    registration_number: { type: 'text', doc: 'registration (matrícula) number, optional' },
    admission_date: { type: 'date', doc: 'formal admission date, optional' },
    pis: { type: 'text', doc: 'PIS number, optional' },
  },
  references: [
    { idField: 'journey_id', nameColumn: 'journey', table: 'journeys', required: true },
    { idField: 'cost_center_id', nameColumn: 'cost_center', table: 'cost_centers', required: true },
    { idField: 'department_id', nameColumn: 'department', table: 'departments', required: true },
    { idField: 'unit_id', nameColumn: 'unit', table: 'units', required: true },
    {
      idField: 'collaborator_settings_id',
      nameColumn: 'collaborator_settings',
      table: 'collaborator_settings',
      required: true,
    },
    { idField: 'point_rule_id', nameColumn: 'point_rule', table: 'point_rules', required: true },
    { idField: 'occupation_id', nameColumn: 'occupation', table: 'occupations', required: false },
  ],
  body: valuesAsBody,
  key: (body) => body.national_registry,
  async check(ctx, candidates) {
    // spec 1.4 rule 1: without scope parameters the list is the token's own company.
    const active = new Map(
      (await ctx.api.listCollaborators(undefined, ctx.call)).map((c) => [c.national_registry, c]),
    );
    const out = new Map<number, Existing>();
    for (const c of candidates) {
      const hit = active.get(c.key);
      if (hit) {
        out.set(c.index, {
          exists: true,
          note: `CPF ${c.key} is already an active collaborator of company ${ctx.company} (${hit.name}, registration ${hit.registration_number})`,
        });
      }
    }
    return out;
  },
  async write(api, body, call) {
    return { id: String((await api.createCollaborator(body, call)).id) };
  },
  touches: () => [{ resource: 'collaborators' }],
};
