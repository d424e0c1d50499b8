//! The analysis thread: it owns the workspace model and the compiled CRDs, applies the
//! client's notifications, answers requests (before any pending analysis, so completion
//! never waits behind a big file) and checks the files an edit made stale, one file at a
//! time. A panic in one analysis or request is caught: a diagnostic on that file, a line in
//! the log, and the server goes on.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeConfiguration, DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument,
    DidOpenTextDocument, DidSaveTextDocument, LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, CodeLensRequest, Completion, DocumentSymbolRequest, GotoDefinition,
    HoverRequest, Request as _, WorkspaceConfiguration,
};
use lsp_types::{
    ConfigurationItem, ConfigurationParams, Diagnostic, DiagnosticSeverity, LogMessageParams,
    MessageType, NumberOrString, PublishDiagnosticsParams, Url,
};
use serde_json::Value;

use super::diagnostics::{check_file, url, Compiled, Shown};
use super::features;
use super::index::Index;
use super::settings::Settings;
use super::test_files::{check_test_file, is_test_file, TestCrds};

/// Request ids the client cancelled (the main loop adds them).
pub(crate) type Cancelled = Arc<Mutex<HashSet<RequestId>>>;

/// The analysis thread's state.
pub(crate) struct Worker {
    sender: Sender<Message>,
    cancelled: Cancelled,
    index: Index,
    /// From `.crd-studio.yaml`.
    file_settings: Value,
    /// From the client (`initializationOptions`, then `workspace/configuration`).
    client_settings: Value,
    settings: Settings,
    compiled: Compiled,
    /// The CRDs the test files name, compiled.
    test_crds: TestCrds,
    /// Per test file, the files it names: an edit of one runs it again.
    test_refs: HashMap<PathBuf, BTreeSet<PathBuf>>,
    dirty: BTreeSet<PathBuf>,
    shown: HashMap<PathBuf, Vec<Shown>>,
    published: HashSet<PathBuf>,
    builtins_logged: bool,
    config_request: Option<RequestId>,
    supports_configuration: bool,
    supports_watching: bool,
    next_id: i32,
    /// The merged settings the workspace was last read with.
    settings_in_force: Option<Value>,
    /// Files checked since the stale set was last empty.
    checked: usize,
}

impl Worker {
    pub fn new(
        sender: Sender<Message>,
        cancelled: Cancelled,
        root: Option<PathBuf>,
        init_options: Value,
        (supports_configuration, supports_watching): (bool, bool),
    ) -> Worker {
        let mut w = Worker {
            sender,
            cancelled,
            index: Index {
                root,
                ..Index::default()
            },
            file_settings: Value::Null,
            client_settings: init_options,
            settings: Settings::default(),
            compiled: Compiled::default(),
            test_crds: TestCrds::default(),
            test_refs: HashMap::new(),
            dirty: BTreeSet::new(),
            shown: HashMap::new(),
            published: HashSet::new(),
            builtins_logged: false,
            config_request: None,
            supports_configuration,
            supports_watching,
            next_id: 0,
            checked: 0,
            settings_in_force: None,
        };
        w.reload_settings();
        w
    }

    /// Runs until the channel closes.
    pub fn run(mut self, receiver: Receiver<Message>) {
        if self.supports_configuration {
            self.ask_configuration();
        }
        if self.supports_watching {
            self.watch_files();
        }
        loop {
            let message = if self.dirty.is_empty() {
                match receiver.recv() {
                    Ok(m) => m,
                    Err(_) => return,
                }
            } else {
                match receiver.try_recv() {
                    Ok(m) => m,
                    Err(TryRecvError::Empty) => {
                        self.check_next();
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => return,
                }
            };
            // Everything queued behind it: a request about a document that a later queued
            // edit changes is superseded (ContentModified) rather than answered for a text
            // the client no longer shows.
            let mut queue: std::collections::VecDeque<Message> = std::iter::once(message)
                .chain(receiver.try_iter())
                .collect();
            while let Some(m) = queue.pop_front() {
                if let Message::Request(r) = &m {
                    let uri = r.params.pointer("/textDocument/uri").cloned();
                    let superseded = uri.is_some()
                        && queue.iter().any(|later| {
                            matches!(later, Message::Notification(n)
                                if n.method == DidChangeTextDocument::METHOD
                                    && n.params.pointer("/textDocument/uri") == uri.as_ref())
                        });
                    if superseded {
                        self.send(Message::Response(Response::new_err(
                            r.id.clone(),
                            ErrorCode::ContentModified as i32,
                            "the document changed".into(),
                        )));
                        continue;
                    }
                }
                self.handle(m);
            }
        }
    }

    fn handle(&mut self, message: Message) {
        match message {
            Message::Request(r) => self.request(r),
            Message::Notification(n) => self.notification(n),
            Message::Response(r) => {
                if Some(&r.id) == self.config_request.as_ref() {
                    self.config_request = None;
                    if let Some(Value::Array(items)) = r.result {
                        if let Some(v) = items.into_iter().next().filter(|v| v.is_object()) {
                            self.client_settings = merge(&self.client_settings, &v);
                            self.reload_settings();
                        }
                    }
                }
            }
        }
    }

    fn send(&self, m: Message) {
        let _ = self.sender.send(m);
    }

    fn log(&self, typ: MessageType, message: String) {
        self.send(Message::Notification(Notification::new(
            LogMessage::METHOD.into(),
            LogMessageParams { typ, message },
        )));
    }

    /// Asks the client to tell of changes on disk to YAML and JSON files.
    fn watch_files(&mut self) {
        self.next_id += 1;
        let id = RequestId::from(format!("crd-studio-watch-{}", self.next_id));
        let options = lsp_types::DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![lsp_types::FileSystemWatcher {
                glob_pattern: lsp_types::GlobPattern::String("**/*.{yaml,yml,json}".into()),
                kind: None,
            }],
        };
        self.send(Message::Request(Request::new(
            id,
            lsp_types::request::RegisterCapability::METHOD.into(),
            lsp_types::RegistrationParams {
                registrations: vec![lsp_types::Registration {
                    id: "crd-studio-files".into(),
                    method: DidChangeWatchedFiles::METHOD.into(),
                    register_options: serde_json::to_value(options).ok(),
                }],
            },
        )));
    }

    fn ask_configuration(&mut self) {
        self.next_id += 1;
        let id = RequestId::from(format!("crd-studio-config-{}", self.next_id));
        self.config_request = Some(id.clone());
        self.send(Message::Request(Request::new(
            id,
            WorkspaceConfiguration::METHOD.into(),
            ConfigurationParams {
                items: vec![ConfigurationItem {
                    scope_uri: None,
                    section: Some("crd-studio".into()),
                }],
            },
        )));
    }

    /// Reads `.crd-studio.yaml`, merges the client's settings over it, rescans the workspace
    /// and marks every file to check.
    fn reload_settings(&mut self) {
        self.file_settings = self
            .index
            .root
            .as_ref()
            .and_then(|r| std::fs::read_to_string(r.join(".crd-studio.yaml")).ok())
            .and_then(|t| {
                crd_studio_engine::read_documents(&t, crd_studio_engine::SourceId::Object(0))
                    .values
                    .into_iter()
                    .next()
                    .map(|(_, v)| v)
            })
            .unwrap_or(Value::Null);
        let in_force = merge(&self.file_settings, &self.client_settings);
        if self.settings_in_force.as_ref() == Some(&in_force) {
            return; // the same settings (a client repeating them): nothing to redo
        }
        self.settings_in_force = Some(in_force);
        let mut s = Settings::default();
        s.merge(&self.file_settings);
        s.merge(&self.client_settings);
        for p in std::mem::take(&mut s.problems) {
            self.log(MessageType::WARNING, format!("crd-studio settings: {p}"));
        }
        self.settings = s;
        self.compiled.clear();
        self.test_crds.clear();
        for line in self.index.scan(&self.settings) {
            self.log(MessageType::LOG, line);
        }
        self.log(
            MessageType::INFO,
            format!(
                "crd-studio: {} files, {} CRD kinds in the workspace",
                self.index.files.len(),
                self.index.crds.len()
            ),
        );
        self.dirty = self.index.files.keys().cloned().collect();
    }

    fn notification(&mut self, n: Notification) {
        let params = n.params;
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(params)
                {
                    self.set(
                        &p.text_document.uri,
                        Some(p.text_document.text),
                        Some(p.text_document.version),
                    );
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(params)
                {
                    if let Some(change) = p.content_changes.into_iter().last() {
                        self.set(
                            &p.text_document.uri,
                            Some(change.text),
                            Some(p.text_document.version),
                        );
                    }
                }
            }
            DidSaveTextDocument::METHOD => {}
            DidChangeWatchedFiles::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeWatchedFilesParams>(params)
                {
                    for change in p.changes {
                        let Ok(path) = change.uri.to_file_path() else {
                            continue;
                        };
                        if self
                            .index
                            .files
                            .get(&path)
                            .is_some_and(|f| f.version.is_some())
                        {
                            continue; // the open buffer wins
                        }
                        if path.file_name().is_some_and(|n| n == ".crd-studio.yaml") {
                            self.reload_settings();
                            continue;
                        }
                        let disk = self.index.disk_text(&path, &self.settings);
                        if disk.is_none() && self.index.files.contains_key(&path) {
                            self.publish(&path, Vec::new(), None);
                        }
                        if disk.is_some() || self.index.files.contains_key(&path) {
                            self.set(&change.uri, disk, None);
                        }
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(params)
                {
                    let uri = p.text_document.uri;
                    if let Ok(path) = uri.to_file_path() {
                        let disk = self.index.disk_text(&path, &self.settings);
                        if disk.is_none() {
                            self.publish(&path, Vec::new(), None);
                        }
                        self.set(&uri, disk, None);
                    }
                }
            }
            DidChangeConfiguration::METHOD => {
                let section = params
                    .get("settings")
                    .and_then(|s| s.get("crd-studio"))
                    .cloned();
                match section {
                    Some(v) if v.is_object() => {
                        self.client_settings = merge(&self.client_settings, &v);
                        self.reload_settings();
                    }
                    _ if self.supports_configuration => self.ask_configuration(),
                    _ => self.reload_settings(),
                }
            }
            _ => {}
        }
    }

    fn set(&mut self, uri: &Url, text: Option<String>, version: Option<i32>) {
        let Ok(path) = uri.to_file_path() else { return };
        let kinds = self.index.set(&path, text, version);
        self.dirty.insert(path.clone());
        for (test, refs) in &self.test_refs {
            if refs.contains(&path) {
                self.dirty.insert(test.clone());
            }
        }
        if !kinds.is_empty() {
            self.compiled.retain(&self.index);
            self.dirty.extend(self.index.files_with_objects_of(&kinds));
        }
    }

    /// Checks the next stale file: open buffers first.
    fn check_next(&mut self) {
        let next = self
            .dirty
            .iter()
            .find(|p| {
                self.index
                    .files
                    .get(*p)
                    .is_some_and(|f| f.version.is_some())
            })
            .or_else(|| self.dirty.iter().next())
            .cloned();
        if let Some(path) = next {
            self.check(path);
            self.checked += 1;
        }
        if self.dirty.is_empty() {
            let checked = std::mem::take(&mut self.checked);
            self.log(
                MessageType::LOG,
                format!("crd-studio: checked {checked} files"),
            );
        }
    }

    /// Checks one file and publishes its diagnostics.
    fn check(&mut self, path: PathBuf) {
        self.dirty.remove(&path);
        let Some(file) = self.index.files.get(&path) else {
            return;
        };
        if file.extra && file.version.is_none() {
            return;
        }
        let version = file.version;
        let (index, settings, compiled) = (&self.index, &self.settings, &mut self.compiled);
        let test_crds = &mut self.test_crds;
        let result = catch_unwind(AssertUnwindSafe(|| {
            if test_hooks()
                && index
                    .files
                    .get(&path)
                    .is_some_and(|f| f.text.contains("crd-studio-test: panic"))
            {
                panic!("a test panic while checking");
            }
            if is_test_file(&path) {
                let (d, refs) = check_test_file(index, settings, test_crds, &path);
                (d, Some(refs))
            } else {
                (check_file(index, settings, compiled, &path), None)
            }
        }));
        match result {
            Ok((d, refs)) => {
                if let Some(refs) = refs {
                    self.test_refs.insert(path.clone(), refs);
                }
                if !d.builtin_kinds.is_empty() && !self.builtins_logged {
                    self.builtins_logged = true;
                    self.log(
                        MessageType::INFO,
                        format!(
                            "crd-studio: built-in kinds ({}, ...) are left alone: only custom resources with a CRD in the workspace are checked",
                            d.builtin_kinds.iter().cloned().collect::<Vec<_>>().join(", ")
                        ),
                    );
                }
                self.shown.insert(path.clone(), d.shown);
                self.publish(&path, d.diagnostics, version);
                if version.is_none() {
                    self.compiled.forget_unused(&self.index, &path);
                }
            }
            Err(panic) => {
                let what = panic_text(&panic);
                self.compiled.clear();
                self.test_crds.clear();
                self.log(
                    MessageType::ERROR,
                    format!("crd-studio: checking {} panicked: {what}", path.display()),
                );
                let d = Diagnostic {
                    severity: Some(DiagnosticSeverity::ERROR),
                    code: Some(NumberOrString::String("studio.internal-error".into())),
                    source: Some("crd-studio".into()),
                    message: format!("crd-studio could not check this file (an internal error, please report it): {what}"),
                    ..Diagnostic::default()
                };
                self.shown.remove(&path);
                self.publish(&path, vec![d], version);
            }
        }
    }

    /// Publishes a file's diagnostics: always for an open buffer (each version gets its
    /// answer), otherwise only when there are some or were some.
    fn publish(&mut self, path: &Path, diagnostics: Vec<Diagnostic>, version: Option<i32>) {
        if diagnostics.is_empty() && !self.published.remove(path) && version.is_none() {
            return;
        }
        if !diagnostics.is_empty() {
            self.published.insert(path.to_owned());
        }
        self.send(Message::Notification(Notification::new(
            PublishDiagnostics::METHOD.into(),
            PublishDiagnosticsParams {
                uri: url(path),
                diagnostics,
                version,
            },
        )));
    }

    fn request(&mut self, r: Request) {
        let taken = self
            .cancelled
            .lock()
            .map(|mut c| c.remove(&r.id))
            .unwrap_or(false);
        if taken {
            self.send(Message::Response(Response::new_err(
                r.id,
                ErrorCode::RequestCanceled as i32,
                "cancelled".into(),
            )));
            return;
        }
        let id = r.id.clone();
        let result = catch_unwind(AssertUnwindSafe(|| self.answer(r)));
        let response = match result {
            Ok(Ok(v)) => Response::new_ok(id, v),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(panic) => {
                let what = panic_text(&panic);
                self.compiled.clear();
                self.log(
                    MessageType::ERROR,
                    format!("crd-studio: a request panicked: {what}"),
                );
                Response::new_err(id, ErrorCode::InternalError as i32, what)
            }
        };
        self.send(Message::Response(response));
    }

    fn answer(&mut self, r: Request) -> Result<Value, (ErrorCode, String)> {
        fn params<P: serde::de::DeserializeOwned>(v: Value) -> Result<P, (ErrorCode, String)> {
            serde_json::from_value(v).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
        }
        fn path_of(uri: &Url) -> Result<PathBuf, (ErrorCode, String)> {
            uri.to_file_path()
                .map_err(|()| (ErrorCode::InvalidParams, format!("not a file: {uri}")))
        }
        let (index, settings, compiled) = (&self.index, &self.settings, &mut self.compiled);
        let test_crds = &mut self.test_crds;
        fn json<T: serde::Serialize>(v: T) -> Value {
            serde_json::to_value(v).unwrap_or(Value::Null)
        }
        Ok(match r.method.as_str() {
            Completion::METHOD => {
                let p: lsp_types::CompletionParams = params(r.params)?;
                let at = p.text_document_position;
                let path = path_of(&at.text_document.uri)?;
                if is_test_file(&path) {
                    json(features::test_completion(
                        index,
                        settings,
                        test_crds,
                        &path,
                        at.position,
                    ))
                } else {
                    json(features::completion(
                        index,
                        settings,
                        compiled,
                        &path,
                        at.position,
                    ))
                }
            }
            HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = params(r.params)?;
                let at = p.text_document_position_params;
                let path = path_of(&at.text_document.uri)?;
                if is_test_file(&path) {
                    json(features::test_hover(
                        index,
                        settings,
                        test_crds,
                        &path,
                        at.position,
                    ))
                } else {
                    json(features::hover(
                        index,
                        settings,
                        compiled,
                        &path,
                        at.position,
                    ))
                }
            }
            GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = params(r.params)?;
                let at = p.text_document_position_params;
                let path = path_of(&at.text_document.uri)?;
                json(features::definition(
                    index,
                    settings,
                    compiled,
                    &path,
                    at.position,
                ))
            }
            CodeActionRequest::METHOD => {
                let p: lsp_types::CodeActionParams = params(r.params)?;
                let path = path_of(&p.text_document.uri)?;
                // Answer for the text the client sees: check a stale file first.
                if self.dirty.contains(&path) {
                    self.check(path.clone());
                }
                let shown = self.shown.get(&path).map(Vec::as_slice).unwrap_or(&[]);
                let mut actions =
                    features::code_actions(&p.text_document.uri, &path, shown, p.range);
                actions.extend(features::version_actions(
                    self.index.root.as_deref(),
                    shown,
                    p.range,
                ));
                json(actions)
            }
            DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = params(r.params)?;
                let path = path_of(&p.text_document.uri)?;
                json(lsp_types::DocumentSymbolResponse::Nested(
                    features::document_symbols(index, &path),
                ))
            }
            CodeLensRequest::METHOD => {
                let p: lsp_types::CodeLensParams = params(r.params)?;
                let path = path_of(&p.text_document.uri)?;
                json(features::code_lenses(index, settings, compiled, &path))
            }
            "crd-studio/test-panic" if test_hooks() => panic!("a test panic"),
            "crd-studio/test-sleep" if test_hooks() => {
                std::thread::sleep(std::time::Duration::from_millis(400));
                Value::Null
            }
            _ => {
                return Err((
                    ErrorCode::MethodNotFound,
                    format!("unknown method {}", r.method),
                ))
            }
        })
    }
}

/// Whether the protocol tests' hooks are on (`CRD_STUDIO_LSP_TEST_HOOKS` set): a request
/// that panics, one that keeps the analysis thread busy, a file text that panics its check.
fn test_hooks() -> bool {
    std::env::var_os("CRD_STUDIO_LSP_TEST_HOOKS").is_some()
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// `over`'s keys over `base`'s.
fn merge(base: &Value, over: &Value) -> Value {
    let mut out = base.as_object().cloned().unwrap_or_default();
    if let Some(o) = over.as_object() {
        for (k, v) in o {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}
