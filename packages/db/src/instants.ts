/** Instants as the stores keep them: ISO 8601 text, normalised on the way in and out. */

export const now = () => new Date().toISOString();

/** A stored instant as ISO 8601: SQLite keeps the ISO text it was given, Postgres answers in its own format. */
export const isoOf = (value: string): string => new Date(value).toISOString();

/** `isoOf` for a column that may be null. */
export const isoOrNull = (value: string | null): string | null => (value === null ? null : isoOf(value));
