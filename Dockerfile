# shortlink as a container image: `docker build -t shortlink .`, then
# `docker run -p 3000:3000 -v shortlink-data:/data shortlink` (docs/operations.md, "Containers").
#
# The base is a build argument so the official image is the default and a local stand-in can be
# passed in where no registry is reachable (test/container/image.sh).
#
# Node.js 24 LTS, the reference runtime (22 and 26 are tested too: docs/operations.md, "Node.js
# versions").
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: dependencies (better-sqlite3's install runs node-gyp, which needs python3 and make; it
# uses the N-API build its package ships for linux-x64 and arm64, and compiles from source, with
# g++, on a platform it has none for), the Prisma clients, the compiled service.
FROM ${NODE_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts .npmrc ./
COPY prisma ./prisma
# postinstall generates the Prisma clients from prisma/ (no engine is downloaded) and runs this
# script on them (it says why).
COPY scripts/prisma-compiler-from-file.mjs ./scripts/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY bin ./bin
COPY public ./public
# The pages' templates are read at run time beside their compiled code.
RUN npm run build \
 && cp -r src/pages/views dist/src/pages/ \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force
# What the service, the shortlink CLI and `prisma migrate deploy|status` never load: Prisma Studio,
# Prisma's local dev server (PGlite), other databases' query compilers, C sources, source maps,
# type declarations… (the script says why each is safe): about 325 MiB of node_modules.
COPY scripts/slim-node-modules.mjs ./scripts/
RUN node scripts/slim-node-modules.mjs

# ---- runtime: production dependencies (slimmed), the compiled service and the migrations; no
# compilers, no dev dependencies, no sources or tests.
FROM ${NODE_IMAGE} AS runtime
# CHECKPOINT_DISABLE: the Prisma CLI (`prisma migrate deploy|status` run by an admin) would
# otherwise try the network for an update check. MALLOC_ARENA_MAX: src/node-flags.ts's START_ENV
# (glibc reads it only at start; node-flags.spec.ts keeps it in step).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=file:/data/shortlink.db \
    CHECKPOINT_DISABLE=1 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json /app/prisma.config.ts ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/bin ./bin
COPY --from=build /app/public ./public
# `shortlink` on PATH for `docker exec <container> shortlink …`, as the container's user (an
# `npx shortlink` would try to chmod root-owned files, and without --no-install could fetch a
# stranger's package of that name).
RUN ln -s /app/bin/shortlink.js /usr/local/bin/shortlink \
 && mkdir -p /data \
 && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Liveness; orchestrators should route traffic by /health/ready (503 while the database is
# unreachable or the instance is draining).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# umask 077: whatever the service writes is its user's alone (the database holds password hashes
# and secrets; the code makes it, its WAL and backups 0600 whatever the umask, and this covers the
# rest). `exec` keeps node as PID 1. `docker exec` does not pass through here: the code's own modes
# are what protect `docker exec … shortlink backup`.
ENTRYPOINT ["/bin/sh", "-c", "umask 077 && exec \"$@\"", "shortlink"]
# node runs as PID 1 and handles SIGTERM itself (graceful drain, last click flush, exit 0); it
# starts no child processes, so nothing needs reaping. `docker run --init` adds tini if wanted.
# The node options are src/node-flags.ts's (V8 reads them only at start; node-flags.spec.ts keeps
# this line in step).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "--v8-pool-size=1", "dist/src/main.js"]
