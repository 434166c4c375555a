/** The drivers' errors the stores recognise (a unique key's violation, MySQL's error numbers), wherever drizzle wraps them. */

/** Whether `error`, or an error it wraps (drizzle wraps driver errors in `.cause`), satisfies `test`. */
function inCauses(error: unknown, test: (error: object) => boolean): boolean {
  for (let e = error; typeof e === 'object' && e !== null; e = 'cause' in e ? e.cause : undefined) {
    if (test(e)) return true;
  }
  return false;
}

const codeOf = (error: object) => ('code' in error && typeof error.code === 'string' ? error.code : undefined);

/** A local database reports the extended code; a remote libSQL server may report only `SQLITE_CONSTRAINT`. */
export const isSqliteUniqueViolation = (error: unknown) =>
  inCauses(error, (e) => /^SQLITE_CONSTRAINT(_PRIMARYKEY|_UNIQUE)?$/.test(codeOf(e) ?? ''));

export const isPgUniqueViolation = (error: unknown) => inCauses(error, (e) => codeOf(e) === '23505');

/** A MySQL error number anywhere in the chain of causes drizzle wraps it in. */
export const hasErrno = (error: unknown, errno: number) => inCauses(error, (e) => 'errno' in e && e.errno === errno);

/** MySQL's duplicate-key error. */
export const isMysqlUniqueViolation = (error: unknown) => hasErrno(error, 1062);
