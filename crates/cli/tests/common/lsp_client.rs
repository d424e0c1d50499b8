//! A small JSON-RPC client of `crd-studio lsp` over stdio, for the protocol tests
//! (`tests/lsp.rs`) and the benchmark (`benches/lsp.rs`).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A spawned server and what it has sent.
pub struct Client {
    pub child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    pub seen: Vec<Value>,
    next_id: i64,
}

impl Client {
    pub fn start(root: &Path, init_options: Value) -> Client {
        Client::start_binary(
            Path::new(env!("CARGO_BIN_EXE_crd-studio")),
            root,
            init_options,
        )
    }

    pub fn start_binary(binary: &Path, root: &Path, init_options: Value) -> Client {
        let mut child = Command::new(binary)
            .arg("lsp")
            .env("CRD_STUDIO_LSP_TEST_HOOKS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn crd-studio lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                r.read_exact(&mut body).unwrap();
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            rx,
            seen: Vec::new(),
            next_id: 0,
        };
        let uri = url(root);
        let id = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": "w"}],
                "capabilities": {},
                "initializationOptions": init_options,
            }),
        );
        let r = c.response(id);
        assert!(r["result"]["capabilities"]["hoverProvider"]
            .as_bool()
            .unwrap());
        c.notify("initialized", json!({}));
        c
    }

    pub fn send(&mut self, v: Value) {
        let body = v.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for a message `pick` accepts (messages already seen count), at most 60 s.
    pub fn wait(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
        self.wait_within(what, Duration::from_secs(60), pick)
    }

    /// Like [`Client::wait`], at most `timeout`.
    pub fn wait_within(
        &mut self,
        what: &str,
        timeout: Duration,
        pick: impl Fn(&Value) -> bool,
    ) -> Value {
        if let Some(i) = self.seen.iter().position(&pick) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(v) if pick(&v) => return v,
                Ok(v) => self.seen.push(v),
                Err(_) => panic!("timed out waiting for {what}; seen: {:#?}", self.seen),
            }
        }
    }

    /// The next message not yet seen, waiting at most `timeout`.
    pub fn try_next(&mut self, timeout: Duration) -> Option<Value> {
        self.rx.recv_timeout(timeout).ok()
    }

    pub fn response(&mut self, id: i64) -> Value {
        self.wait(&format!("response {id}"), |v| {
            v["id"] == json!(id) && v.get("method").is_none()
        })
    }

    /// The next diagnostics published for `path` that `pick` accepts.
    pub fn diagnostics(&mut self, path: &Path, pick: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = url(path);
        let v = self.wait(&format!("diagnostics of {uri}"), |v| {
            v["method"] == "textDocument/publishDiagnostics"
                && v["params"]["uri"] == uri
                && pick(v["params"]["diagnostics"].as_array().unwrap())
        });
        v["params"]["diagnostics"].as_array().unwrap().clone()
    }

    pub fn open(&mut self, path: &Path, text: &str, version: i32) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": url(path), "languageId": "yaml", "version": version, "text": text}}),
        );
    }

    pub fn change(&mut self, path: &Path, text: &str, version: i32) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": url(path), "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    pub fn at(&mut self, method: &str, path: &Path, line: u32, character: u32) -> Value {
        let id = self.request(
            method,
            json!({"textDocument": {"uri": url(path)}, "position": {"line": line, "character": character}}),
        );
        self.response(id)
    }

    pub fn stop(mut self) {
        let id = self.request("shutdown", Value::Null);
        self.response(id);
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

pub fn url(path: &Path) -> String {
    format!("file://{}", path.display())
}
