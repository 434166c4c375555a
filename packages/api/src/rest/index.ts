import { createRestHandler } from './dispatch.ts';
import { restRoutes } from './routes.ts';

export { createRestHandler, MAX_BODY_BYTES } from './dispatch.ts';
export { restRoutes, type RestRoute, type ProcedurePath } from './routes.ts';
export { buildOpenApiDocument, openApiDocument, outsideTheTable } from './openapi.ts';

/** The dashboard's `/api/*` REST adapter. */
export const handleRest = createRestHandler(restRoutes);
