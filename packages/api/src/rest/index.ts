import { createRestHandler } from './dispatch.ts';
import { restRoutes } from './routes/index.ts';

export { createRestHandler, MAX_BODY_BYTES } from './dispatch.ts';
export { restRoutes } from './routes/index.ts';
export type { RestRoute, ProcedurePath } from './route.ts';
export { buildOpenApiDocument, openApiDocument } from './openapi.ts';
export { outsideTheTable } from './openapi-outside.ts';

/** The dashboard's `/api/*` REST adapter. */
export const handleRest = createRestHandler(restRoutes);
