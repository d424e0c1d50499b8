//! `crd-studio lsp`: a Language Server Protocol server over stdio, a thin shell over the
//! engine's front door. Modules, one job each: [`settings`] (the settings file and the
//! client's), [`index`] (the workspace's files and CRDs), [`diagnostics`] (checking one
//! file), [`features`] (completion, hover, code actions, definition), [`dispatch`] (the
//! analysis thread), [`position`] (the protocol's positions), [`test_files`] (running
//! `*.crdtest.yaml` files).
//!
//! The main loop reads the client's messages, records `$/cancelRequest`s and hands the
//! rest to the analysis thread, which owns the model (compiled CRDs are not `Send`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use lsp_server::{Connection, Message, RequestId};
use lsp_types::notification::{Cancel, Notification as _};
use lsp_types::{
    CodeActionProviderCapability, CodeLensOptions, CompletionOptions, HoverProviderCapability,
    InitializeParams, OneOf, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind,
};

use crate::Error;

mod diagnostics;
mod dispatch;
mod features;
mod index;
mod position;
mod settings;
mod test_files;

const USAGE: &str = "\
usage: crd-studio lsp [--stdio]

Runs the CRD Studio language server over standard input and output (the Language Server
Protocol): diagnostics, completion, hover, code actions and go to definition for the
CustomResourceDefinitions of the workspace and their objects. Settings come from
`.crd-studio.yaml` at the workspace root and from the client (section `crd-studio`).";

/// `crd-studio lsp`.
pub(crate) fn run(args: &[String]) -> Result<ExitCode, Error> {
    for a in args {
        match a.as_str() {
            "--stdio" => {}
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            other => return Err(Error::Usage(format!("lsp: unknown argument {other}"))),
        }
    }
    let (connection, io) = Connection::stdio();
    let result = serve(connection);
    io.join().map_err(|e| Error::Io(format!("lsp: {e}")))?;
    result.map(|()| ExitCode::SUCCESS).map_err(Error::Io)
}

/// Serves one client on `connection` until it exits.
pub(crate) fn serve(connection: Connection) -> Result<(), String> {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some([".", ":", " ", "\""].map(String::from).to_vec()),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        ..ServerCapabilities::default()
    };
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let init = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": ServerInfo { name: "crd-studio".into(), version: Some(env!("CARGO_PKG_VERSION").into()) },
    });
    connection
        .initialize_finish(id, init)
        .map_err(|e| e.to_string())?;
    let params: InitializeParams = serde_json::from_value(params).map_err(|e| e.to_string())?;
    #[allow(deprecated)]
    let root = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| f.uri.clone())
        .or(params.root_uri.clone())
        .and_then(|u| u.to_file_path().ok())
        .or_else(|| params.root_path.clone().map(PathBuf::from));
    let supports_configuration = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.configuration)
        .unwrap_or(false);
    let supports_watching = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false);
    let init_options = params
        .initialization_options
        .unwrap_or(serde_json::Value::Null);

    let cancelled: dispatch::Cancelled = Arc::new(Mutex::new(Default::default()));
    let (to_worker, from_main) = crossbeam_channel::unbounded();
    let (sender, worker_cancelled) = (connection.sender.clone(), cancelled.clone());
    // The worker is made on its own thread: it owns the model (compiled CRDs are not `Send`).
    let thread = std::thread::Builder::new()
        .name("crd-studio-analysis".into())
        .spawn(move || {
            dispatch::Worker::new(
                sender,
                worker_cancelled,
                root,
                init_options,
                (supports_configuration, supports_watching),
            )
            .run(from_main)
        })
        .map_err(|e| e.to_string())?;

    for message in &connection.receiver {
        match message {
            Message::Request(r) => {
                if connection.handle_shutdown(&r).map_err(|e| e.to_string())? {
                    break;
                }
                let _ = to_worker.send(Message::Request(r));
            }
            Message::Notification(n) if n.method == Cancel::METHOD => {
                let id = match n.params.get("id") {
                    Some(serde_json::Value::Number(x)) => x
                        .as_i64()
                        .and_then(|x| i32::try_from(x).ok())
                        .map(RequestId::from),
                    Some(serde_json::Value::String(s)) => Some(RequestId::from(s.clone())),
                    _ => None,
                };
                if let (Some(id), Ok(mut c)) = (id, cancelled.lock()) {
                    c.insert(id);
                }
            }
            other => {
                let _ = to_worker.send(other);
            }
        }
    }
    drop(to_worker);
    thread
        .join()
        .map_err(|_| "the analysis thread panicked".to_owned())
}
