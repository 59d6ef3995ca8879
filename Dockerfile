# syntax=docker/dockerfile:1
#
# Images of tsgpu for GPU clusters, both on NVIDIA's CUDA images, the addon
# built with CUDA (nvcc) inside the image:
#
#   kernel      the kernel image that Jupyter Enterprise Gateway's
#               KubernetesProcessProxy starts as a pod; its command is
#               `tsgpu launch`, which reads KERNEL_ID, RESPONSE_ADDRESS,
#               PUBLIC_KEY and PORT_RANGE from the pod's environment
#                 docker build --target kernel -t tsgpu-kernel:0.1.0 .
#                 tsgpu install --gateway kubernetes --image tsgpu-kernel:0.1.0
#
#   singleuser  a JupyterHub single-user server (KubeSpawner) with JupyterLab
#               and the tsgpu kernelspec installed
#                 docker build --target singleuser -t tsgpu-singleuser:0.1.0 .
#
# Build arguments: CUDA_VERSION and UBUNTU pick NVIDIA's image,
# CUDA_ARCHITECTURES the GPUs the kernels are compiled for, JUPYTERHUB_VERSION
# the Hub's version (the single-user server's must match it).

ARG CUDA_VERSION=12.6.3
ARG UBUNTU=ubuntu22.04
ARG NODE_IMAGE=node:20-bookworm-slim

# Node.js 20 (the official build, which runs on Ubuntu 22.04's glibc).
FROM ${NODE_IMAGE} AS node

# ---------------------------------------------------------------- build: nvcc, cmake, the addon and the TypeScript
FROM nvidia/cuda:${CUDA_VERSION}-devel-${UBUNTU} AS build
ARG CUDA_ARCHITECTURES="80;86;89;90"
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake python3 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
RUN ln -s /usr/local/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s /usr/local/lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
WORKDIR /opt/tsgpu
COPY package.json package-lock.json CMakeLists.txt tsconfig.json tsconfig.native.json ./
COPY native native
COPY kernel kernel
COPY magics magics
COPY kernelspec kernelspec
COPY scripts scripts
# The dependencies (their own install scripts run; the package's build does not), then the addon for the
# chosen GPU architectures, the runtime's tables generated from its C++ (native/generated/, which git
# does not hold) and the TypeScript; the build fails unless CUDA was compiled in.
# test/e2e/dockerfile.test.ts runs these steps in a context made from `git archive HEAD`.
RUN npm ci --ignore-scripts --no-audit --no-fund \
    && npm rebuild zeromq @swc/core \
    && npx cmake-js compile --log-level warn "--CDCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}" \
    && node scripts/gen_native_tables.js \
    && npx tsc -p tsconfig.json \
    && node -e 'const r = require("./dist/native").cuda.unavailableReason(); if (r === "built without CUDA") { console.error("the addon was built without CUDA"); process.exit(1); }' \
    && npm prune --omit=dev --no-audit --no-fund \
    && rm -rf build/CMakeFiles build/Release/obj.target

# ---------------------------------------------------------------- kernel: the pod Enterprise Gateway starts
FROM nvidia/cuda:${CUDA_VERSION}-base-${UBUNTU} AS kernel
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=build /opt/tsgpu /opt/tsgpu
RUN ln -s /opt/tsgpu/dist/kernel/cli.js /usr/local/bin/tsgpu \
    && chmod 0755 /opt/tsgpu/dist/kernel/cli.js \
    && useradd --create-home --uid 1000 --gid 100 --shell /bin/bash jovyan \
    && mkdir -p /opt/tsgpu/cache && chown 1000:100 /opt/tsgpu/cache
# The code caches live in the image, not in a home folder that a volume may hide; `tsgpu install` builds the
# type checker's startup snapshot there (for this image's Node and kernel), so that each kernel's first cell
# gets its type warnings without parsing the libraries first.
ENV KERNEL_LANGUAGE=typescript TSGPU_CACHE_DIR=/opt/tsgpu/cache
USER 1000
WORKDIR /home/jovyan
RUN /usr/local/bin/node /opt/tsgpu/dist/kernel/cli.js install --prefix /tmp/tsgpu-spec && rm -rf /tmp/tsgpu-spec
# EG's pod template puts KERNEL_ID, RESPONSE_ADDRESS, PUBLIC_KEY and PORT_RANGE in the environment. The
# launcher starts the type checker from the start file `tsgpu install` wrote (checker-start-KEY in the cache
# folder) before Node.js boots the kernel. KEY is no secret: it names the kernel's folder, the first 16 hex
# digits of the SHA-256 of "/opt/tsgpu" (checkerStartKey in kernel/language/checker_snapshot.ts), the
# key `tsgpu install --gateway` writes into kernelspecs too. Installed elsewhere, it is what
#   node -e 'console.log(require("crypto").createHash("sha256").update("/opt/tsgpu").digest("hex").slice(0, 16))'
# prints for that folder; a key without its start file only means the checker starts with the kernel.
CMD ["/opt/tsgpu/build/Release/tsgpu-launch", "--checker", "f15547f8c55e5611", \
     "/usr/local/bin/node", "--expose-gc", "--min-semi-space-size=8", "--max-semi-space-size=8", "/opt/tsgpu/dist/kernel/cli.js", "launch"]

# ---------------------------------------------------------------- singleuser: JupyterHub with KubeSpawner
FROM kernel AS singleuser
ARG JUPYTERHUB_VERSION=5.2.1
USER root
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-pip tini \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m pip install --no-cache-dir "jupyterhub==${JUPYTERHUB_VERSION}" "jupyterlab>=4,<5" \
    && /usr/local/bin/node /opt/tsgpu/dist/kernel/cli.js install --prefix /usr/local \
    && jupyter kernelspec list
# The example notebooks, in the home folder (a volume mounted over it hides them; /opt/tsgpu/notebooks
# keeps a copy).
COPY --chown=1000:100 notebooks /opt/tsgpu/notebooks
COPY --chown=1000:100 notebooks /home/jovyan/notebooks
USER 1000
WORKDIR /home/jovyan
EXPOSE 8888
ENTRYPOINT ["tini", "--"]
CMD ["jupyterhub-singleuser"]
