//! A small static file server on 127.0.0.1, for the end-to-end tests (no Python or other
//! server needed on the machine). GET and HEAD only; files under the served folder only.
//! Every response carries the studio's Content-Security-Policy as a header ([`CSP`]).
//!
//! # The Content-Security-Policy
//!
//! Static hosts send no headers, so each page carries its policy as a
//! `<meta http-equiv="Content-Security-Policy">`; our own servers (this one, whose [`CSP`] a
//! unit test compares with `index.html`'s meta, and the end-to-end tests' server) send the same
//! as a header plus `frame-ancestors 'self'` (a meta element cannot set `frame-ancestors`,
//! `report-uri` or `sandbox`; a host that wants to restrict framing must send the header).
//!
//! - **No inline script.** Trunk's starter is normally an inline `<script type="module">`;
//!   `Trunk.toml`'s `pattern_script` replaces it with a `<script src="./start.js">` carrying
//!   the hashed names, and `static/start.js` starts the wasm from them (for `trunk build` and
//!   `trunk serve`; the dev server's live-reload client is inline too, so `no_autoreload`).
//! - **`'wasm-unsafe-eval'`** is what compiling WebAssembly needs, and nothing else: no `eval`,
//!   no `new Function`. The module worker and the service worker are same-origin files
//!   (`worker-src 'self'`); a worker's own policy is its response's header (none on a static
//!   host; ours send the same policy, which the worker's `import()` of the glue, its fetch of
//!   `tzdb.bin` and the service worker's fetches satisfy).
//! - **Styles.** The studio's CSS is a file. CodeMirror (style-mod) mounts its styles as a
//!   `<style>` element in the document, and as a constructable stylesheet in a shadow root. A
//!   nonce needs a server minting one per response; a static file's fixed nonce is public, so
//!   it protects no more than `'unsafe-inline'` and adds a way to break. The app page therefore
//!   allows `'unsafe-inline'` for styles only (CSS cannot run script; with `default-src 'none'`,
//!   `img-src 'self' data:` and `connect-src 'self'`, injected CSS cannot send anything
//!   elsewhere). The Yew views never write a `style` attribute (the cost bars set their width
//!   through the CSSOM, `ShareBar` in `src/cel_view.rs`).
//! - **The embed** needs no inline style: the studio's CSS and CodeMirror's go into the shadow
//!   roots as constructable stylesheets. The demo page (`static/demo/`) shows it with
//!   `style-src 'self'`; `README.md` lists what a docs page must allow.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread;

/// The Content-Security-Policy header sent with every file: the `<meta http-equiv>` policy of
/// `index.html` (which the tests check they agree with) plus `frame-ancestors`, which a meta
/// element cannot set: pages of this origin may frame the studio (the iframe embed), others
/// may not. `e2e/harness.mjs` (`serveDist`) sends the same.
pub const CSP: &str = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
frame-ancestors 'self'";

/// A running server; it stops with the process.
pub struct Server {
    port: u16,
    handle: thread::JoinHandle<()>,
}

impl Server {
    /// Serves `dir` on 127.0.0.1:`port` (0 picks a free port) in a background thread.
    pub fn start(dir: &Path, port: u16) -> Result<Server, String> {
        let dir = dir
            .canonicalize()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("bind: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("bind: {e}"))?
            .port();
        let handle = thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let dir = dir.clone();
                thread::spawn(move || {
                    let _ = handle(stream, &dir);
                });
            }
        });
        Ok(Server { port, handle })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Blocks until the server thread ends (it doesn't, until the process is stopped).
    pub fn wait(self) {
        let _ = self.handle.join();
    }
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let mut out = dir.to_path_buf();
    for comp in Path::new(path.trim_start_matches('/')).components() {
        match comp {
            Component::Normal(c) => out.push(c),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

fn handle(stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("/");
    let mut stream = stream;
    let file = resolve(dir, target).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b)));
    match (method, file) {
        ("GET" | "HEAD", Some((path, body))) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nContent-Security-Policy: {CSP}\r\nConnection: close\r\n\r\n",
                mime(&path),
                body.len()
            )?;
            if method == "GET" {
                stream.write_all(&body)?;
            }
        }
        ("GET" | "HEAD", None) => {
            stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
            )?;
        }
        _ => {
            stream.write_all(
                b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )?;
        }
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `content` of the `<meta http-equiv="Content-Security-Policy">` element of `html`.
    fn meta_csp(html: &str) -> Option<&str> {
        let at = html.find("http-equiv=\"Content-Security-Policy\"")?;
        let rest = html.get(at..)?;
        let start = rest.find("content=\"")? + "content=\"".len();
        let rest = rest.get(start..)?;
        rest.get(..rest.find('"')?)
    }

    #[test]
    fn the_header_is_the_pages_meta_policy_plus_frame_ancestors() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let index = std::fs::read_to_string(root.join("index.html")).unwrap();
        let meta = meta_csp(&index).expect("index.html has a CSP meta element");
        assert_eq!(format!("{meta}; frame-ancestors 'self'"), CSP);
        // The Node server of the e2e tests sends the same header.
        let node = std::fs::read_to_string(root.join("e2e/harness.mjs")).unwrap();
        assert!(node.contains(CSP), "e2e/harness.mjs sends {CSP}");
        // The demo docs page is stricter: no inline styles at all.
        let demo = std::fs::read_to_string(root.join("static/demo/index.html")).unwrap();
        let demo = meta_csp(&demo).expect("the demo page has a CSP meta element");
        assert_eq!(
            demo,
            meta.replace("style-src 'self' 'unsafe-inline'", "style-src 'self'")
        );
    }
}
