# syntax=docker/dockerfile:1
# The dashboard: build the SvelteKit app in the workspace, then ship the Node server with only its
# production dependencies (`pnpm deploy`) and the migrations. Build from the repo root:
#   docker build -f docker/web.Dockerfile -t founder-dashboard .
FROM node:20-bookworm-slim AS build
RUN npm install -g pnpm@10.34.8
WORKDIR /repo
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm --filter @dash/web build \
 && pnpm --filter @dash/web deploy --prod --legacy /out

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    DATABASE_URL=file:/data/dashboard.db \
    MIGRATIONS_DIR=/app/drizzle
WORKDIR /app
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/node_modules ./node_modules
COPY --from=build /repo/apps/web/build ./build
COPY --from=build /repo/drizzle/sqlite ./drizzle/sqlite
COPY --from=build /repo/drizzle/pg ./drizzle/pg
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/api/settings').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "build/index.js"]
