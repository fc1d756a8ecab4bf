/** Absence types of spec 2.4: global ones, and each company's own. */
import type { AbsenceTypeEntity } from './entities.js';

/** Global absence types (ids 1..9, the same in every company). */
export const GLOBAL_ABSENCE_TYPES: readonly AbsenceTypeEntity[] = [
  {
    id: 1,
    description: 'Férias',
    paidLeave: true,
    compTime: false,
    compensation: false,
    canRequestApp: true,
    kind: 'vacation',
  },
  {
    id: 2,
    description: 'Atestado médico',
    paidLeave: true,
    compTime: false,
    compensation: false,
    canRequestApp: true,
    kind: 'medical',
  },
  {
    id: 3,
    description: 'Consulta médica',
    paidLeave: true,
    compTime: false,
    compensation: false,
    canRequestApp: true,
    kind: 'consult',
  },
  {
    id: 4,
    description: 'Falta justificada não remunerada',
    paidLeave: false,
    compTime: false,
    compensation: false,
    canRequestApp: false,
    kind: 'unpaid',
  },
  {
    id: 5,
    description: 'Folga compensatória (banco de horas)',
    paidLeave: true,
    compTime: true,
    compensation: false,
    canRequestApp: true,
    kind: 'comp_off',
  },
  {
    id: 6,
    description: 'Treinamento externo',
    paidLeave: true,
    compTime: false,
    compensation: false,
    canRequestApp: false,
    kind: 'training',
  },
  {
    id: 7,
    description: 'Licença maternidade',
    paidLeave: true,
    compTime: false,
    compensation: false,
    canRequestApp: false,
    kind: 'other',
  },
  {
    id: 8,
    description: 'Licença paternidade',
    paidLeave: true,
    compTime: false,
    compensation: false,
    canRequestApp: false,
    kind: 'other',
  },
  {
    id: 9,
    description: 'Abono de horas (compensação)',
    paidLeave: true,
    compTime: false,
    compensation: true,
    canRequestApp: false,
    kind: 'other',
  },
];

/** Company `index`'s own absence types: ids from 100 in blocks of ten (the headquarters has two). */
export function companyAbsenceTypes(index: number, isHeadquarter: boolean): AbsenceTypeEntity[] {
  const base = 100 + index * 10;
  const types: AbsenceTypeEntity[] = [
    {
      id: base + 1,
      description: 'Doação de sangue',
      paidLeave: true,
      compTime: false,
      compensation: false,
      canRequestApp: true,
      kind: 'other',
    },
  ];
  if (isHeadquarter) {
    types.push({
      id: base + 2,
      description: 'Day off de aniversário',
      paidLeave: true,
      compTime: false,
      compensation: true,
      canRequestApp: true,
      kind: 'other',
    });
  }
  return types;
}
