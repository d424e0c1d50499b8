//! When a CEL name arrived in Kubernetes: for a rule a server rejects with "undeclared
//! reference to 'isIP'", the oldest server version whose environment for new expressions
//! declares it ([`available_from`]). The versions come from the base environment's table
//! ([`crate::decls::KUBERNETES_BASE_OPTIONS`]): a library's functions and macros arrive
//! with it, at the server one minor after the compatibility version that introduced it.

use crate::checker::EnvBuilder;
use crate::decls::EnvVersion;
use crate::version::{KubernetesVersion, NEWEST_MINOR};

/// What a server's environment for new expressions has under one name: the functions named
/// so or qualified by it (`format.dns1123Label` under `format`), and the macros' (argument
/// count, receiver style).
fn declared(name: &str, server: KubernetesVersion) -> (usize, Vec<(usize, bool)>) {
    let env = EnvBuilder::kubernetes(EnvVersion::NewExpressions(server.compatibility())).build();
    let prefix = format!("{name}.");
    let functions = env
        .functions()
        .iter()
        .filter(|f| f.name == name || f.name.starts_with(&prefix))
        .count();
    let macros = env
        .parser_options()
        .macros
        .macros()
        .iter()
        .map(|m| m.signature())
        .filter(|(n, _, _)| *n == name)
        .map(|(_, argc, receiver)| (argc, receiver))
        .collect();
    (functions, macros)
}

/// The oldest modelled server version after `selected` that has more under `name`: a
/// function named so (`isIP`), functions qualified by it (`format.dns1123Label`), or a macro
/// of an arity `selected` lacks (the two-variable `all(k, v, p)`); `None` when no modelled
/// version has more.
pub fn available_from(name: &str, selected: KubernetesVersion) -> Option<KubernetesVersion> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return None;
    }
    let (functions, macros) = declared(name, selected);
    (selected.minor.saturating_add(1)..=NEWEST_MINOR)
        .map(KubernetesVersion::new)
        .find(|&v| {
            let (f, m) = declared(name, v);
            f > functions || m.iter().any(|s| !macros.contains(s))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_arrive_with_their_library() {
        for (name, selected, want) in [
            ("isIP", 30, Some(31)),
            ("ip", 30, Some(31)),
            ("cidr", 30, Some(31)),
            ("isIP", 31, None),
            ("format", 31, Some(32)),
            ("format", 32, None),
            ("all", 32, Some(33)),
            ("transformList", 30, Some(33)),
            ("all", 33, None),
            ("semver", 30, Some(34)),
            ("sort", 30, Some(35)),
            ("size", 30, None),
            ("noSuchFunction", 30, None),
            ("self", 30, None),
            ("", 30, None),
        ] {
            assert_eq!(
                available_from(name, KubernetesVersion::new(selected)).map(|v| v.minor),
                want,
                "{name} at 1.{selected}"
            );
        }
    }
}
