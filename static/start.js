// Starts the studio's wasm (what Trunk would otherwise write into index.html as an inline
// module script, which a Content-Security-Policy without 'unsafe-inline' refuses). Trunk.toml's
// `pattern_script` writes `<script type="module" src="./start.js" data-js=… data-wasm=…>`
// with the hashed names of the wasm-bindgen glue and the wasm; this file reads them from that
// element and loads both, relative to the page.
const script = document.querySelector('script[data-crd-studio-start]');
if (!script) throw new Error('start.js: no <script data-crd-studio-start> names the wasm');
const url = (name) => new URL(script.dataset[name], document.baseURI).href;
const glue = await import(url('js'));
await glue.default({ module_or_path: url('wasm') });
