# workerd's configuration for the runtime matrix: one Worker (the bundle tools/runtimes/src/workerd.ts
# writes next to this file) on one HTTP socket; the runner moves the socket to a free port with
# `--socket-addr http=127.0.0.1:PORT`.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .matrixWorker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const matrixWorker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "dist/worker.js")],
  compatibilityDate = "2026-11-01",
);
