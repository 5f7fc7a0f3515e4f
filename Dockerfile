# syntax=docker/dockerfile:1
# One image for every service of the dominoes platform. The command picks the service:
#   node apps/gateway/dist/main.js        HTTP + WebSocket + web page, PORT 8080; /metrics on METRICS_PORT 9464
#   node apps/table-service/dist/main.js  health + metrics on PORT 8081
#   node apps/timer-service/dist/main.js  health + metrics on PORT 8082
#   node apps/migrate/dist/main.js        applies prisma/migrations, exits 0
# Build: docker build -t dominoes:local .   (docker compose build does the same)

ARG NODE_IMAGE=node:20-bookworm-slim
# The runtime stage's base: the Debian release NODE_IMAGE is built on (its node binary is copied in).
ARG RUNTIME_BASE_IMAGE=debian:bookworm-slim
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
# Also dropped, as nothing reads them at run time: source maps and type declarations of the dependencies (15 MB),
# and Prisma's query compilers for the databases the schema does not use (59 MB; the provider is postgresql).
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
 && find /out -name '*.tsbuildinfo' -delete \
 && find /out/node_modules \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -type f -delete \
 && find /out/node_modules/@prisma/client/runtime -type f \
      \( -name 'query_compiler_*.cockroachdb.*' -o -name 'query_compiler_*.mysql.*' \
         -o -name 'query_compiler_*.sqlite.*' -o -name 'query_compiler_*.sqlserver.*' \) -delete

# ---------------------------------------------------------------------------------------------------------------
# runtime: production dependencies + compiled output, non-root, tini as PID 1.
# The node binary alone, on the Debian release the Node image is built on: no npm, npx, corepack, yarn or C headers
# (the services never install or compile anything at run time). Removing them in a layer on top of the Node image
# would hide them but keep their bytes in the image (about 65 MB).
FROM ${NODE_IMAGE} AS node
FROM ${RUNTIME_BASE_IMAGE} AS runtime
COPY --from=node /usr/local/bin/node /usr/local/bin/node
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && node --version \
 && groupadd --system --gid 10001 dominoes \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin dominoes
WORKDIR /app
ENV NODE_ENV=production
# A larger young generation (64 MB semi-spaces, V8's default is 16): the table-service's views and
# snapshots are garbage within the action, and scavenging them less often was 4-10% of its CPU at the
# peak (decision 0031). scripts/start.js passes the same flag.
ENV NODE_OPTIONS=--max-semi-space-size=64
# Owned by root and not writable by the service user; the services write only to /tmp.
COPY --from=build /out/ ./
USER 10001:10001
EXPOSE 8080 8081 8082 9464
# tini is PID 1: it forwards SIGTERM/SIGINT to node and reaps zombies, so shutdown hooks run on `docker stop`
# and on pod termination.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "apps/gateway/dist/main.js"]
