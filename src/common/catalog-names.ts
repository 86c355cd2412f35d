/**
 * The names of the one catalog and database every object of a session lives in, as Flink names
 * them by default; shared by the catalog (SHOW CURRENT DATABASE) and the functions that return
 * them (CURRENT_DATABASE()).
 */

/** The catalog every object lives in. */
export const DEFAULT_CATALOG = 'default_catalog';

/** The database every object lives in (weir has one; there is no USE). */
export const DEFAULT_DATABASE = 'default_database';
