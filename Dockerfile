# The crd-studio command line as a container image: a static musl binary on an empty base.
#   docker build -t crd-studio .
#   docker run --rm -v "$PWD:/work" -w /work crd-studio check config/ manifests/
# (`cargo xtask dist` builds the same binary without a container.)
FROM rust:1.95-alpine AS build
WORKDIR /src
COPY . .
RUN cargo build --profile cli --locked -p crd-studio-cli --target x86_64-unknown-linux-musl

FROM scratch
COPY --from=build /src/target/x86_64-unknown-linux-musl/cli/crd-studio /crd-studio
ENTRYPOINT ["/crd-studio"]
CMD ["--help"]
