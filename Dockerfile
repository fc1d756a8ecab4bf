# punchline image: the `punchline` CLI (worker, migrate, backfill, status, emulator, demo).
# The build stage installs every dependency and compiles the TypeScript; the runtime stage
# holds what the published package holds (package.json "files": bin/punchline.js, the
# compiled dist/, the sql/ migrations and the docs) with the production dependencies
# only (no TypeScript, tsx or esbuild), and runs as the unprivileged `node` user.

# Node 22 LTS, pinned to one release (the same one `.ci/run` installs where Node is older).
FROM node:22.23.3-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY jobs ./jobs
RUN npm run build

FROM node:22.23.3-bookworm-slim
# Inside a container the ops server must listen on every interface of the container's
# own network namespace to be reachable at all; who can reach it is decided by how the
# port is published (docker-compose.yml: 127.0.0.1 only). Outside containers the
# default stays 127.0.0.1 (docs/operations.md, "Threat model"). So `worker` and `demo`
# start only with OPS_DASHBOARD_TOKEN(_FILE) set, or OPS_ALLOW_NO_TOKEN=1 where the port
# is published to trusted hosts only (docker-compose.yml says so).
ENV NODE_ENV=production \
    OPS_PORT=9464 \
    OPS_HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin/punchline.js ./bin/
COPY sql ./sql
COPY docs ./docs
COPY README.md LICENSE ./
RUN ln -s /app/bin/punchline.js /usr/local/bin/punchline
USER node
EXPOSE 9464 4010
# Dashboard, /metrics, /livez and /readyz are served by `worker` and `demo` on OPS_PORT.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.OPS_PORT||9464)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["punchline"]
CMD ["worker"]
