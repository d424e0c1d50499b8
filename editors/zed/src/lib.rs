//! The Zed extension of CRD Studio: the language server is `crd-studio lsp`, found on the
//! worktree's PATH unless Zed's settings name the binary
//! (`"lsp": {"crd-studio": {"binary": {"path": "...", "arguments": ["lsp"]}}}`); the
//! server's settings (`kubernetesVersion`, `fieldValidation`, ...) come from
//! `"lsp": {"crd-studio": {"settings": {...}}}` as initialization options and as the
//! `crd-studio` section of the workspace configuration.

use zed_extension_api::{self as zed, serde_json, settings::LspSettings};

const SERVER: &str = "crd-studio";

struct CrdStudio;

impl zed::Extension for CrdStudio {
    fn new() -> Self {
        CrdStudio
    }

    fn language_server_command(
        &mut self,
        _id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<zed::Command> {
        let binary = LspSettings::for_worktree(SERVER, worktree)
            .ok()
            .and_then(|s| s.binary);
        let configured = binary.as_ref().and_then(|b| b.path.clone());
        let command = configured.or_else(|| worktree.which(SERVER)).ok_or_else(|| {
            "crd-studio is not on PATH: install it (cargo install --path crates/cli --profile cli) \
             or set lsp.crd-studio.binary.path"
                .to_owned()
        })?;
        let args = binary
            .and_then(|b| b.arguments)
            .unwrap_or_else(|| vec!["lsp".to_owned()]);
        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }

    fn language_server_initialization_options(
        &mut self,
        _id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        Ok(settings(worktree))
    }

    fn language_server_workspace_configuration(
        &mut self,
        _id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        Ok(settings(worktree).map(|s| serde_json::json!({ SERVER: s })))
    }
}

/// The user's `lsp.crd-studio.settings`.
fn settings(worktree: &zed::Worktree) -> Option<serde_json::Value> {
    LspSettings::for_worktree(SERVER, worktree)
        .ok()
        .and_then(|s| s.settings)
}

zed::register_extension!(CrdStudio);
