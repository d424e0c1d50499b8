//! The colour theme: the reader's system preference (`prefers-color-scheme`) unless the
//! studio page's Theme select chose light or dark. The choice is remembered (localStorage,
//! [`THEME_KEY`]) and applied as `data-theme` on `<html>`, which sets CSS `color-scheme`;
//! every colour of `static/style.css` (and of the editors) is a `light-dark()` custom
//! property, so nothing else changes. An iframe embed takes `?theme=light|dark` from its
//! address and stores nothing; a `<crd-studio>` element takes a `theme` attribute, read by
//! CSS alone (`static/crd-studio-embed.js`).
//!
//! Every colour of `static/style.css` is a custom property defined once on `:root` with
//! `light-dark(light, dark)`; which half applies is CSS `color-scheme`: `light dark` by
//! default, fixed by `data-theme`. Custom properties keep `light-dark()` unresolved until
//! used, so the choice reaches shadow roots and the CodeMirror theme (`web/editor.js` colours
//! the editor, the YAML tokens and the diagnostics' underlines with the same properties). New
//! rules use the properties (`--text`, `--muted`, `--panel`, `--subtle`, `--border`, `--line`,
//! `--hover`, `--accent`, `--focus`, `--error`/`--warning`/`--info`/`--ok` with `-bg` and
//! `-border`, `--*-solid` + `--on-strong` for filled badges), never a literal colour; the axe
//! audit checks the contrast in both themes. Focus rings come from one `:focus-visible` rule.
//! The layout by width: up to 1400 px the status line takes its own row; up to 1100 px the
//! option labels are visually hidden; up to 760 px the editors stack and the page scrolls.
//! Embeds follow their container instead (`@container`, `.studio.embed`).

/// Where the studio page remembers the choice.
pub const THEME_KEY: &str = "crd-studio.theme";

/// A theme choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Follow `prefers-color-scheme`.
    #[default]
    System,
    /// Light colours whatever the system prefers.
    Light,
    /// Dark colours whatever the system prefers.
    Dark,
}

impl Theme {
    /// The choices, in the order the select lists them.
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The name stored and used as the select's value (`system`, `light`, `dark`).
    pub fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// What the select shows.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "System theme",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }

    /// A stored or given name (any case, blanks around); anything else is `System`.
    pub fn parse(name: &str) -> Theme {
        match name.trim().to_ascii_lowercase().as_str() {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }

    /// The `data-theme` value of `<html>`; `None` leaves the choice to the browser.
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }
}

/// The remembered choice.
#[cfg(target_arch = "wasm32")]
pub fn stored() -> Theme {
    use gloo::storage::{LocalStorage, Storage};
    LocalStorage::get::<String>(THEME_KEY)
        .map(|s| Theme::parse(&s))
        .unwrap_or_default()
}

/// Remembers a choice (`System` forgets it).
#[cfg(target_arch = "wasm32")]
pub fn store(theme: Theme) {
    use gloo::storage::{LocalStorage, Storage};
    match theme {
        Theme::System => LocalStorage::delete(THEME_KEY),
        t => {
            let _ = LocalStorage::set(THEME_KEY, t.name());
        }
    }
}

/// Applies a choice to the page (`data-theme` on `<html>`).
#[cfg(target_arch = "wasm32")]
pub fn apply(theme: Theme) {
    let Some(root) = gloo::utils::document().document_element() else {
        return;
    };
    let _ = match theme.attribute() {
        Some(value) => root.set_attribute("data-theme", value),
        None => root.remove_attribute("data-theme"),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_follow_the_system() {
        for t in Theme::ALL {
            assert_eq!(Theme::parse(t.name()), t);
        }
        assert_eq!(Theme::parse(" Dark "), Theme::Dark);
        assert_eq!(Theme::parse("auto"), Theme::System);
        assert_eq!(Theme::parse(""), Theme::System);
        assert_eq!(Theme::System.attribute(), None);
        assert_eq!(Theme::Light.attribute(), Some("light"));
    }
}
