// The engine's Web Worker (a module worker). It loads the page's own wasm module (the URLs
// come in the first message, `{type: 'boot', js, wasm}`), then hands every message to the
// engine's queue (`worker_receive`) and runs one queued job per task (`worker_step`), posting
// each answer back. One job per task lets messages that arrived during a long analysis reach
// the queue first, so the engine runs only the newest job of each studio (see
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

tick.port1.onmessage = () => {
  scheduled = false;
  const answer = engine.worker_step();
  if (answer === 'needTimeZones') {
    loadTimeZones();
  } else if (typeof answer === 'string') {
    self.postMessage(answer);
  }
  if (engine.worker_pending()) schedule();
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
    const exports = await module.default({ module_or_path: message.wasm });
    // For the browser benchmark's memory figure.
    self.__engineMemory = exports && exports.memory;
    module.worker_start();
    engine = module;
    for (const m of early) engine.worker_receive(m[0], m[1]);
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
    engine.worker_receive(m[0], m[1]);
    schedule();
  }
};
