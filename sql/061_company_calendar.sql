-- 061_company_calendar: each company's calendar (docs/warehouse.md "Company calendar").
-- company_calendar holds one row per company and date: Brazil's national holidays, the
-- holidays of the company's state (the state of its postal code, as its time zone is) and
-- the days the user declares in declared_holidays (municipal holidays, optional days,
-- company days off), with is_business_day and is_working_day for that company. The
-- national calendar table stays as it is.

CREATE TABLE declared_holidays (
  holiday_date  date NOT NULL,
  company_cnpj  text NOT NULL DEFAULT '' CHECK (company_cnpj = '' OR company_cnpj ~ '^[0-9]{14}$'),
  zip_prefix    text NOT NULL DEFAULT '' CHECK (zip_prefix ~ '^[0-9]{0,8}$'),
  name          text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('municipal', 'optional', 'company')),
  is_day_off    boolean NOT NULL DEFAULT true,
  PRIMARY KEY (holiday_date, company_cnpj, zip_prefix),
  CHECK (company_cnpj <> '' OR zip_prefix <> '')
);
COMMENT ON TABLE declared_holidays IS 'Holidays and days off the API does not know, declared by the user (INSERT rows; each sync reads them and company_calendar follows): municipal holidays (Lei 9.093/1995: up to four, Good Friday among them where the city keeps it), optional days (ponto facultativo: Carnival, Corpus Christi) and a company''s own days off. A row applies to one company (company_cnpj) or to every company whose postal code starts with zip_prefix (a city''s CEP range).';
COMMENT ON COLUMN declared_holidays.holiday_date IS 'The day. Key with company_cnpj and zip_prefix.';
COMMENT ON COLUMN declared_holidays.company_cnpj IS 'The company the day applies to; empty when the row is city-scoped (zip_prefix).';
COMMENT ON COLUMN declared_holidays.zip_prefix IS 'Leading digits of the postal codes (companies.zip_code) the day applies to, e.g. 01 to 05 for the city of São Paulo; empty when the row names a company.';
COMMENT ON COLUMN declared_holidays.name IS 'Name of the holiday or day off (shown as company_calendar.holiday_name).';
COMMENT ON COLUMN declared_holidays.kind IS 'municipal (a city''s holiday), optional (ponto facultativo: a day off only where the company grants it) or company (the company''s own day off).';
COMMENT ON COLUMN declared_holidays.is_day_off IS 'True when the company does not work that day (the default); false records an optional day the company works.';

CREATE TABLE company_calendar (
  company_cnpj    text NOT NULL,
  calendar_date   date NOT NULL,
  state           text,
  iso_day_of_week integer NOT NULL CHECK (iso_day_of_week BETWEEN 1 AND 7),
  is_holiday      boolean NOT NULL,
  holiday_name    text,
  holiday_scope   text CHECK (holiday_scope IN ('national', 'state', 'municipal', 'optional', 'company')),
  is_business_day boolean NOT NULL,
  is_working_day  boolean NOT NULL,
  synced_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, calendar_date),
  CHECK (is_holiday = (holiday_name IS NOT NULL)),
  CHECK (is_holiday = (holiday_scope IS NOT NULL))
);
COMMENT ON TABLE company_calendar IS 'One row per company and date of the months the company''s marts cover: national holidays, the holidays of the company''s state (from its postal code) and the declared_holidays that apply to it, with the company''s business and working days. Kept current by the sync (a mart module) and rewritten whole months; the national calendar table stays.';
COMMENT ON COLUMN company_calendar.company_cnpj IS 'CNPJ of the company. Natural key with calendar_date.';
COMMENT ON COLUMN company_calendar.calendar_date IS 'The date. Natural key with company_cnpj.';
COMMENT ON COLUMN company_calendar.state IS 'Two-letter state of the company''s postal code (companies.zip_code); null when the code names none (then only national and declared holidays apply).';
COMMENT ON COLUMN company_calendar.iso_day_of_week IS 'ISO day of the week: 1 Monday ... 7 Sunday.';
COMMENT ON COLUMN company_calendar.is_holiday IS 'True on a day off for the company: a national or state holiday, or a declared day off (declared_holidays.is_day_off).';
COMMENT ON COLUMN company_calendar.holiday_name IS 'Name of the holiday (the national one first when two fall on one day); null on other days.';
COMMENT ON COLUMN company_calendar.holiday_scope IS 'national, state (the state''s law), municipal, optional or company (declared_holidays.kind); null on other days.';
COMMENT ON COLUMN company_calendar.is_business_day IS 'Monday to Friday and not a holiday of the company: the office week, the days absence and absenteeism figures count.';
COMMENT ON COLUMN company_calendar.is_working_day IS 'Monday to Saturday and not a holiday of the company: the CLT''s "dia útil" (Saturday is a working day in labour law; Sunday is the weekly rest, Lei 605/1949). People on 6x1 or 12x36 schedules work on other days too: their own schedule is employee_daily.is_scheduled.';
COMMENT ON COLUMN company_calendar.synced_at IS 'When punchline wrote the row.';
