#!/bin/sh
# Build the real agentd 2.5.1's release image from its public source, packaged as its release Dockerfile does
# (a static musl binary on `scratch`, uid 65532, ENTRYPOINT /agentd, the release FEATURES), and label it with
# contract v2 (docs/containers.md) so `agentd-conformance agent --container` checks it with labels only — no
# wrapper entry point, nothing in the image changed.
#
# Not run in CI (a cold build takes about 30 min on 2 cores). Nothing is pulled from an image registry: the
# release Dockerfile's builder stage (rust:1.96-alpine) is replaced by the same cargo build on this host,
# musl target; crates come from crates.io (`--locked` against agentd's Cargo.lock).
#
# Needs: a nightly toolchain with the x86_64-unknown-linux-musl target
#   (rustup target add x86_64-unknown-linux-musl --toolchain nightly; agentd wants rust 1.96),
#   musl-gcc (Debian: apt-get install musl-tools; `ring` compiles C for the target), docker.
#
# Usage:
#   benchmarks/agentd_release_image.sh SOURCE [TAG]
#     SOURCE  a git dir of github.com/agentd-dev/source-code (a bare mirror is fine) or an unpacked tree
#     TAG     the image tag (default agentd-release:2.5.1)
#   env: AGENTD_REF (default v2.5.1), WORK (default ./agentd-release-build), DEFAULTS (the defaults label,
#        default events=off,push=off; push=on runs the primary instance with push enabled so the PUSH rows,
#        conditional on the card declaring it, are measured), FEATURES (default: the release
#        Dockerfile's), SKIP_BUILD=1 to reuse a binary already in $WORK.
# Then:
#   agentd-conformance agent --family a2a --container agentd-release:2.5.1
#   agentd-conformance agent --family agentd --container agentd-release:2.5.1
set -eu

SRC=${1:?usage: $0 SOURCE [TAG]}
TAG=${2:-agentd-release:2.5.1}
REF=${AGENTD_REF:-v2.5.1}
WORK=${WORK:-$PWD/agentd-release-build}
# The release Dockerfile's ARG FEATURES default, verbatim.
FEATURES=${FEATURES:-a2a,metrics,cron,otel,hot-reload,config-watch,aauth,oauth,cel}
TARGET=x86_64-unknown-linux-musl

mkdir -p "$WORK"
TREE=$WORK/src
if [ "${SKIP_BUILD:-}" != 1 ]; then
    rm -rf "$TREE" && mkdir -p "$TREE"
    if git --git-dir="$SRC" rev-parse --verify -q "$REF^{commit}" >/dev/null 2>&1; then
        git --git-dir="$SRC" archive "$REF" | tar -x -C "$TREE"
    elif [ -f "$SRC/Cargo.toml" ]; then
        cp -a "$SRC/." "$TREE/"
    else
        echo "$SRC: neither a git dir holding $REF nor a source tree" >&2
        exit 2
    fi
    # As the Dockerfile's builder: release profile (LTO, stripped, panic=abort), --locked, the FEATURES.
    (cd "$TREE" && CC_x86_64_unknown_linux_musl=musl-gcc nice -n 19 \
        cargo +nightly build --release --locked -p agentd-cli --features "$FEATURES" --target "$TARGET")
fi
BIN=$TREE/target/$TARGET/release/agentd
file "$BIN" | grep -q 'static' || { echo "$BIN is not a static binary" >&2; exit 1; }

CTX=$WORK/image
rm -rf "$CTX" && mkdir -p "$CTX"
cp "$BIN" "$CTX/agentd"
# The release Dockerfile's runtime stage, verbatim but for the COPY source (its OCI labels kept).
cat > "$CTX/Dockerfile" <<'EOF'
FROM scratch
ARG VERSION="2.5.1"
ARG REVISION="unknown"
ARG CREATED="1970-01-01T00:00:00Z"
LABEL org.opencontainers.image.title="agentd" \
      org.opencontainers.image.source="https://github.com/agentd-dev/source-code" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="scratch"
COPY agentd /agentd
USER 65532:65532
ENTRYPOINT ["/agentd"]
EOF

# Contract v2 labels only (docs/containers.md, "agentd's own image, with labels only").
#  - network=host + public-url=AGENTD_A2A_LISTEN: agentd's card names its a2a.listen address, so the harness
#    hands it https://127.0.0.1:<free port> and reaches it there.
#  - tls: AGENTD_A2A_TLS_CERT/KEY are agentd's env spelling of a2a.tls.cert/key; the CA for its outbound
#    calls goes in AGENTD_SECURITY_TLS_CA.
#  - config: principals in agentd's own dialect (config_version 2, a2a.principals with bearer_ref secrets:
#    agentd refuses inline credentials in files).
#  - long-running-text: with no intelligence endpoint configured agentd keeps every task WORKING until it is
#    canceled, so any text is a long-running message.
#  - push: agentd's a2a.push.enabled follows the harness's push fact; allow_private because the harness's
#    webhook receivers listen on this host's loopback (network=host), which agentd refuses without it.
P=dev.agentd-conformance
T=$(cat <<'JSON'
{"config_version": "2",
 "a2a": {"principals": {"$map": {"$eval": "principals"},
                        "each(p)": {"match": {"bearer_ref": "{{secret:${p.token_env}}}"}, "role": "${p.role}",
                                    "grants": {"$eval": "p.grants"}}},
         "push": {"enabled": {"$eval": "facts.push == 'on'"}, "allow_private": true}}}
JSON
)
T=$(printf '%s' "$T" | tr -d '\n')
REVISION=$(git --git-dir="$SRC" rev-parse "$REF^{commit}" 2>/dev/null || echo unknown)
docker build -t "$TAG" --build-arg REVISION="$REVISION" \
    --label "$P.contract=2" --label "$P.network=host" --label "$P.public-url=AGENTD_A2A_LISTEN" \
    --label "$P.tls=cert=AGENTD_A2A_TLS_CERT,key=AGENTD_A2A_TLS_KEY,ca=AGENTD_SECURITY_TLS_CA" \
    --label "$P.config=path=/etc/agentd/agentd.yaml,format=json-e,env=AGENT_CONFIG" \
    --label "$P.config-takes=principals,push" --label "$P.config-template=$T" \
    --label "$P.state=path=/var/lib/agentd,env=AGENTD_STATE_DIR" \
    --label "$P.callbacks=schemes=https+http" --label "$P.defaults=${DEFAULTS:-events=off,push=off}" \
    --label "$P.long-running-text=${LONG_RUNNING_TEXT:-hold-until-canceled}" \
    "$CTX"
docker image inspect "$TAG" --format '{{.Id}} {{.Config.User}} {{json .Config.Entrypoint}}'
