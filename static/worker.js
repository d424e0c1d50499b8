// The engine's Web Worker (a module worker). It runs the page's own wasm module: the first
// message, `{type: 'boot', js, module}`, names the wasm-bindgen JS glue to import and carries
// the page's compiled `WebAssembly.Module` (so the wasm is downloaded and compiled once per
// page; `{js, wasm}` with the wasm's URL also works), then hands every message to the
// engine's queue (`worker_receive`) and runs the queued jobs (`worker_step`), posting each
// answer back. A message that finds the worker idle is answered at once; after each job the
// worker waits one task, so that messages which arrived during a long analysis reach the
// queue before the next job is chosen and only the newest job of each studio runs (see
// src/worker.rs and src/worker_protocol.rs).
let engine = null;
const early = [];
const tick = new MessageChannel();
let scheduled = false;

function schedule() {
  if (!scheduled && engine) {
    scheduled = true;
    tick.port2.postMessage(null);
  }
}

// Hands a message to the engine's queue: [meta, crd text or null], or [meta, null, splice]
// when only the changed middle of the CRD text came ([baseLen, keepStart, keepEnd, middle]).
function deliver(m) {
  const splice = m[2];
  if (splice) {
    // Counted for the end-to-end tests.
    self.__splices = (self.__splices ?? 0) + 1;
    engine.worker_receive_splice(m[0], splice[0], splice[1], splice[2], splice[3]);
  } else {
    engine.worker_receive(m[0], m[1]);
  }
}

// A message while idle is answered at once; while a run is settling, it waits for the tick.
function receive(m) {
  deliver(m);
  if (!scheduled) runOne();
}

// Runs the next queued job and posts its answer, then lets the messages that arrived during
// it reach the queue (one task later) before another job is chosen.
function runOne() {
  const answer = engine.worker_step();
  if (answer === 'needTimeZones') {
    loadTimeZones();
  } else if (typeof answer === 'string') {
    self.postMessage(answer);
  }
  scheduled = true;
  tick.port2.postMessage(null);
}

tick.port1.onmessage = () => {
  scheduled = false;
  if (engine.worker_pending()) runOne();
};

// CEL's time-zone database, fetched the first time a rule names a zone (beside this script).
async function loadTimeZones() {
  let bytes = null;
  try {
    const response = await fetch(new URL('tzdb.bin', self.location.href));
    if (response.ok) bytes = new Uint8Array(await response.arrayBuffer());
  } catch {}
  engine.worker_time_zones(bytes);
  schedule();
}

async function boot(message) {
  try {
    const module = await import(message.js);
    const exports = await module.default({ module_or_path: message.module ?? message.wasm });
    // For the browser benchmark's memory figure.
    self.__engineMemory = exports && exports.memory;
    module.worker_start();
    engine = module;
    for (const m of early) deliver(m);
    early.length = 0;
    schedule();
  } catch (error) {
    self.postMessage({ type: 'bootError', message: String(error && error.message || error) });
  }
}

self.onmessage = (event) => {
  const m = event.data;
  if (m && m.type === 'boot') {
    boot(m);
  } else if (!engine) {
    early.push(m);
  } else {
    receive(m);
  }
};
