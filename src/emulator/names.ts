/** Word pools for realistic Brazilian records: people, companies, places, time-and-attendance terms. */

/** Given names. */
export const FIRST_NAMES = [
  'Ana',
  'Beatriz',
  'Bruna',
  'Camila',
  'Carla',
  'Carolina',
  'Daniela',
  'Débora',
  'Eduarda',
  'Fernanda',
  'Gabriela',
  'Helena',
  'Isabela',
  'Juliana',
  'Larissa',
  'Letícia',
  'Luana',
  'Mariana',
  'Natália',
  'Patrícia',
  'Priscila',
  'Raquel',
  'Renata',
  'Sabrina',
  'Tatiane',
  'Vanessa',
  'Vitória',
  'Yasmin',
  'Aline',
  'Cláudia',
  'André',
  'Antônio',
  'Bruno',
  'Carlos',
  'Daniel',
  'Diego',
  'Eduardo',
  'Felipe',
  'Fernando',
  'Gabriel',
  'Guilherme',
  'Gustavo',
  'Henrique',
  'João',
  'José',
  'Leandro',
  'Lucas',
  'Luiz',
  'Marcelo',
  'Marcos',
  'Mateus',
  'Paulo',
  'Pedro',
  'Rafael',
  'Ricardo',
  'Rodrigo',
  'Thiago',
  'Vinícius',
  'Wagner',
  'Anderson',
] as const;

/** Family names. */
export const LAST_NAMES = [
  'Silva',
  'Santos',
  'Oliveira',
  'Souza',
  'Rodrigues',
  'Ferreira',
  'Alves',
  'Pereira',
  'Lima',
  'Gomes',
  'Costa',
  'Ribeiro',
  'Martins',
  'Carvalho',
  'Almeida',
  'Lopes',
  'Soares',
  'Fernandes',
  'Vieira',
  'Barbosa',
  'Rocha',
  'Dias',
  'Nascimento',
  'Andrade',
  'Moreira',
  'Nunes',
  'Marques',
  'Machado',
  'Mendes',
  'Freitas',
  'Cardoso',
  'Ramos',
  'Gonçalves',
  'Santana',
  'Teixeira',
  'Araújo',
  'Pinto',
  'Correia',
  'Cavalcanti',
  'Monteiro',
] as const;

/** Group brand words for the headquarters' legal name. */
export const GROUP_BRANDS = [
  'Aurora',
  'Horizonte',
  'Boa Safra',
  'Vale Verde',
  'Atlântico',
  'Cerrado',
  'Serra Azul',
  'Ipê',
  'Jacarandá',
  'Pioneira',
] as const;

/** Lines of business for company names. */
export const BUSINESS_LINES = [
  'Alimentos',
  'Logística',
  'Comércio Varejista',
  'Indústria Têxtil',
  'Serviços Hospitalares',
  'Engenharia',
  'Distribuidora',
  'Tecnologia',
  'Transportes',
  'Construções',
] as const;

/** A city with a centre point for geolocation. */
export interface City {
  readonly name: string;
  readonly state: string;
  readonly lat: number;
  readonly lng: number;
  readonly zipPrefix: string;
  readonly phoneArea: string;
  /** IANA zone of the city's legal time, when it is not Brasília time. */
  readonly timeZone?: string;
}

/** Cities where companies and units sit. */
export const CITIES: readonly City[] = [
  { name: 'São Paulo', state: 'SP', lat: -23.5505, lng: -46.6333, zipPrefix: '01', phoneArea: '11' },
  { name: 'Campinas', state: 'SP', lat: -22.9099, lng: -47.0626, zipPrefix: '13', phoneArea: '19' },
  { name: 'Rio de Janeiro', state: 'RJ', lat: -22.9068, lng: -43.1729, zipPrefix: '20', phoneArea: '21' },
  { name: 'Belo Horizonte', state: 'MG', lat: -19.9167, lng: -43.9345, zipPrefix: '30', phoneArea: '31' },
  { name: 'Curitiba', state: 'PR', lat: -25.4284, lng: -49.2733, zipPrefix: '80', phoneArea: '41' },
  { name: 'Porto Alegre', state: 'RS', lat: -30.0346, lng: -51.2177, zipPrefix: '90', phoneArea: '51' },
  { name: 'Recife', state: 'PE', lat: -8.0476, lng: -34.877, zipPrefix: '50', phoneArea: '81' },
  { name: 'Salvador', state: 'BA', lat: -12.9777, lng: -38.5016, zipPrefix: '40', phoneArea: '71' },
  { name: 'Goiânia', state: 'GO', lat: -16.6869, lng: -49.2648, zipPrefix: '74', phoneArea: '62' },
  { name: 'Fortaleza', state: 'CE', lat: -3.7319, lng: -38.5267, zipPrefix: '60', phoneArea: '85' },
];

/** Brasília time: the zone of every city above (spec 1.2's default). */
export const BRASILIA_TIME_ZONE = 'America/Sao_Paulo';

/** Cities off Brasília time (quirk `otherTimeZone`): UTC−4 in AM and MT, UTC−5 in AC; their own CEPs. */
export const OTHER_ZONE_CITIES: readonly City[] = [
  {
    name: 'Manaus',
    state: 'AM',
    lat: -3.119,
    lng: -60.0217,
    zipPrefix: '690',
    phoneArea: '92',
    timeZone: 'America/Manaus',
  },
  {
    name: 'Cuiabá',
    state: 'MT',
    lat: -15.601,
    lng: -56.0974,
    zipPrefix: '780',
    phoneArea: '65',
    timeZone: 'America/Cuiaba',
  },
  {
    name: 'Rio Branco',
    state: 'AC',
    lat: -9.9754,
    lng: -67.8249,
    zipPrefix: '6990',
    phoneArea: '68',
    timeZone: 'America/Rio_Branco',
  },
];

/** Street names. */
export const STREETS = [
  'Rua das Flores',
  'Avenida Paulista',
  'Rua XV de Novembro',
  'Avenida Brasil',
  'Rua Sete de Setembro',
  'Rua Tiradentes',
  'Avenida Getúlio Vargas',
  'Rua Santos Dumont',
  'Rua Dom Pedro II',
  'Avenida das Nações',
  'Rua Barão do Rio Branco',
  'Rua José Bonifácio',
  'Avenida Industrial',
  'Rua do Comércio',
  'Rodovia dos Bandeirantes',
] as const;

/** Neighbourhoods. */
export const NEIGHBORHOODS = [
  'Centro',
  'Jardim América',
  'Vila Nova',
  'Distrito Industrial',
  'Boa Vista',
  'Santa Cecília',
  'Bela Vista',
  'Parque Industrial',
  'Jardim Europa',
  'Vila Mariana',
] as const;

/** Departments (active ones first; the last is created inactive). */
export const DEPARTMENTS = [
  'Administrativo',
  'Financeiro',
  'Recursos Humanos',
  'Operações',
  'Comercial',
  'Logística',
  'Tecnologia da Informação',
  'Manutenção',
] as const;

/** Occupations with their CBO codes. */
export const OCCUPATIONS = [
  ['Analista Administrativo', '252105'],
  ['Assistente Financeiro', '413110'],
  ['Auxiliar de Logística', '414140'],
  ['Operador de Produção', '784205'],
  ['Vendedor', '521110'],
  ['Supervisor de Operações', '410105'],
  ['Técnico de Manutenção', '313105'],
  ['Analista de Sistemas', '212405'],
  ['Recepcionista', '422105'],
  ['Motorista', '782510'],
  ['Encarregado de Turno', '410235'],
  ['Assistente de RH', '411010'],
] as const;

/** Cost centres. */
export const COST_CENTERS = [
  'CC 100 - Administração',
  'CC 200 - Produção',
  'CC 300 - Vendas',
  'CC 400 - Logística',
  'CC 500 - Projetos',
] as const;

/** Teams (a collaborator's team may also be null, spec 2.1). */
export const TEAMS = ['Equipe A', 'Equipe B', 'Equipe C', 'Turno Manhã', 'Turno Tarde'] as const;

/** Dismissal types. */
export const FIRED_TYPES = [
  'Demissão sem justa causa',
  'Demissão com justa causa',
  'Pedido de demissão',
  'Término de contrato de experiência',
  'Acordo entre as partes',
] as const;

/** Managers who approve adjustments. */
export const MANAGERS = ['Marina Duarte', 'Roberto Cunha', 'Silvia Prado', 'Otávio Brandão'] as const;

/** Reasons a collaborator gives for a punch adjustment. */
export const ADJUSTMENT_REASONS = [
  'Esqueci de registrar a entrada',
  'Celular sem bateria',
  'Relógio de ponto indisponível',
  'Reunião externa com cliente',
  'Problema de conexão no aplicativo',
  'Registro em horário incorreto',
] as const;

/** Doctors for medical certificates. */
export const DOCTORS = [
  'Dra. Helena Matos',
  'Dr. Paulo Siqueira',
  'Dra. Renata Azevedo',
  'Dr. Caio Lins',
] as const;

/** Health units. */
export const HEALTH_UNITS = [
  'UBS Centro',
  'Hospital São Lucas',
  'Clínica Vida Plena',
  'Pronto Atendimento Municipal',
] as const;

/** ICD-10 codes with a description. */
export const CIDS = [
  ['J11', 'Influenza devida a vírus não identificado'],
  ['A09', 'Diarreia e gastroenterite de origem infecciosa presumível'],
  ['M54.5', 'Dor lombar baixa'],
  ['J06.9', 'Infecção aguda das vias aéreas superiores'],
  ['R51', 'Cefaleia'],
  ['S93.4', 'Entorse e distensão do tornozelo'],
] as const;
