# petstore-kit as an OCI image: the mock (the default command, on 0.0.0.0:4010) and the contract kit, for CI
# jobs (`image:`) and service containers (`services:`). The bins are bundles (the kit's with its chunks in
# dist/contract/), so Node is all the image needs beside them: build them first, then the image (docs/mock.md#container-image):
#   npm ci && npm run build && docker build -t petstore-kit .
# The base is a build argument: any image with `node` (>= 20.19) on PATH and a POSIX sh.
ARG BASE_IMAGE=node:22-bookworm-slim
FROM ${BASE_IMAGE}

COPY package.json LICENSE /opt/petstore-kit/
COPY spec/petstore.openapi.yaml /opt/petstore-kit/spec/
COPY dist/bin/petstore-mock.js dist/bin/petstore-contract.js dist/bin/petstore.openapi.json dist/bin/petstore.openapi.yaml /opt/petstore-kit/dist/bin/
# The kit's bin shares its code with petstore-kit/contract: its chunks and the default spec beside them.
COPY dist/contract/*.js dist/contract/petstore.openapi.json /opt/petstore-kit/dist/contract/
# /spec: where a mounted document is served from; /work: the writable folder for reports (--report, --output).
RUN ln -s /opt/petstore-kit/dist/bin/petstore-mock.js /usr/local/bin/petstore-mock \
 && ln -s /opt/petstore-kit/dist/bin/petstore-contract.js /usr/local/bin/petstore-contract \
 && mkdir -p /spec /work \
 && chown 1000:1000 /work

WORKDIR /work
# A numeric user, so an orchestrator's runAsNonRoot can verify it (the official Node images call it `node`).
USER 1000:1000
ENV PORT=4010
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4010) + '/__mock/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The mock serves /spec/openapi.yaml when one is mounted there, else the kit's own Petstore spec. In a container
# every client is remote (the host, the CI job's container), so the controls (/__mock/*) answer them all.
CMD ["sh", "-c", "exec petstore-mock $(test -f /spec/openapi.yaml && echo /spec/openapi.yaml) --host 0.0.0.0 --allow-remote-control --allowed-hosts all"]
