/** The token of an `Authorization: Bearer …` header value, or ''. */
export const bearerOf = (authorization: string | undefined) => /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
