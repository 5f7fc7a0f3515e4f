# syntax=docker/dockerfile:1
# One image for every service of the dominoes platform. The command picks the service:
#   node apps/gateway/dist/main.js        HTTP + WebSocket + web page, PORT 8080; /metrics on METRICS_PORT 9464
#   node apps/table-service/dist/main.js  health + metrics on PORT 8081
#   node apps/timer-service/dist/main.js  health + metrics on PORT 8082
#   node apps/migrate/dist/main.js        applies prisma/migrations, exits 0
# Build: docker build -t dominoes:local .   (docker compose build does the same)

ARG NODE_IMAGE=node:20-bookworm-slim
# The npm that honours package.json "allowScripts": dependencies' install scripts run only where it allows them,
# as on the developers' machines and CI. Keep it equal to the npm that wrote package-lock.json.
ARG NPM_VERSION=11.19.1

# ---------------------------------------------------------------------------------------------------------------
# manifests: what `npm ci` reads (package.json files, the lockfile) and what the root postinstall runs
# (scripts/prisma-generate.js with prisma/ and prisma.config.ts), so that `npm ci` below stays cached until
# one of those changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /out \
 && cp package.json package-lock.json /out/ \
 && find apps libs -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /out/ \; \
 && cp -r --parents scripts prisma prisma.config.ts /out/

# ---------------------------------------------------------------------------------------------------------------
# build: full install, compile everything, then drop the dev dependencies.
FROM ${NODE_IMAGE} AS build
ARG NPM_VERSION
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false \
    NX_DAEMON=false \
    NX_NO_CLOUD=true \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1
RUN npm install -g "npm@${NPM_VERSION}"
WORKDIR /app
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm npm ci
COPY . .
# prisma generate (no engine download), tsc -b tsconfig.build.json, and the web client build.
RUN npm run build
# --omit=optional too: prisma, typescript and their trees are dev dependencies that are also optional peers of
# @prisma/client, which --omit=dev alone keeps (about 250 MB). The only optional packages of the production
# tree (msgpackr-extract, a native speed-up with a JS fallback; pg-cloudflare; @pkgjs/parseargs) are not needed
# on Node 20 / Linux; deploy/test/consistency.test.ts fails when another one appears.
RUN npm prune --omit=dev --omit=optional \
 && mkdir -p /out \
 && cp -a package.json package-lock.json node_modules prisma /out/ \
 && for dir in apps/* libs/*; do \
      [ -f "$dir/package.json" ] || continue; \
      mkdir -p "/out/$dir"; \
      cp "$dir/package.json" "/out/$dir/"; \
      if [ -d "$dir/dist" ]; then cp -a "$dir/dist" "/out/$dir/"; fi; \
      if [ -d "$dir/node_modules" ]; then cp -a "$dir/node_modules" "/out/$dir/"; fi; \
    done \
 && rm -rf /out/node_modules/.cache \
 && find /out -name '*.tsbuildinfo' -delete

# ---------------------------------------------------------------------------------------------------------------
# runtime: production dependencies + compiled output, non-root, tini as PID 1.
# npm, npx, corepack and yarn are removed: the services never install anything at run time.
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /opt/yarn-* \
           /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && groupadd --system --gid 10001 dominoes \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin dominoes
WORKDIR /app
ENV NODE_ENV=production
# Owned by root and not writable by the service user; the services write only to /tmp.
COPY --from=build /out/ ./
USER 10001:10001
EXPOSE 8080 8081 8082 9464
# tini is PID 1: it forwards SIGTERM/SIGINT to node and reaps zombies, so shutdown hooks run on `docker stop`
# and on pod termination.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "apps/gateway/dist/main.js"]
