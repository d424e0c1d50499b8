//! Errors as cel-go's `common.Errors`: a list of located messages, rendered exactly as
//! `ToDisplayString()` renders them (`ERROR: <input>:L:C: message`, the source line and a caret
//! line).

use crate::source::{Location, Source};

/// One error: a message at a location, optionally tied to an expression id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Where the error is ([`Location::NONE`] for errors without a position).
    pub location: Location,
    /// The message, without the `ERROR: ...` prefix.
    pub message: String,
    /// The expression id the error belongs to (0 when none).
    pub expr_id: i64,
}

const MAX_SNIPPET_LENGTH: usize = 16384;

impl Error {
    /// cel-go's `Error.ToDisplayString`: `ERROR: <desc>:<line>:<col+1>: <message>`, then, when the
    /// line exists, ` | <line with tabs as spaces>` and ` | ...^` (wide dots and caret under
    /// multi-byte characters).
    pub fn to_display_string(&self, source: &Source) -> String {
        let mut out = format!(
            "ERROR: {}:{}:{}: {}",
            source.description(),
            self.location.line,
            self.location.column.saturating_add(1),
            self.message
        );
        if let Some(snippet) = source.snippet(self.location.line) {
            if snippet.len() <= MAX_SNIPPET_LENGTH {
                let snippet = snippet.replace('\t', " ");
                out.push_str("\n | ");
                out.push_str(&snippet);
                out.push_str("\n | ");
                let mut chars = snippet.chars();
                let mut i = 0;
                let mut rest = chars.clone();
                while i < self.location.column {
                    match chars.next() {
                        Some(c) => {
                            out.push(if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' });
                            rest = chars.clone();
                        }
                        None => break,
                    }
                    i += 1;
                }
                match rest.next() {
                    Some(c) if c.len_utf8() > 1 => out.push('\u{ff3e}'),
                    _ => out.push('^'),
                }
            }
        }
        out
    }
}

/// A list of errors with cel-go's reporting limit (100 errors are kept; the rest are counted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Errors {
    errors: Vec<Error>,
    num_errors: usize,
    max_errors_to_report: usize,
}

impl Default for Errors {
    fn default() -> Self {
        Errors {
            errors: Vec::new(),
            num_errors: 0,
            max_errors_to_report: 100,
        }
    }
}

impl Errors {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reports an error (kept when fewer than 100 were reported before).
    pub fn report(&mut self, expr_id: i64, location: Location, message: impl Into<String>) {
        self.num_errors = self.num_errors.saturating_add(1);
        if self.num_errors > self.max_errors_to_report {
            return;
        }
        self.errors.push(Error {
            location,
            message: message.into(),
            expr_id,
        });
    }

    /// The kept errors, in reporting order.
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// True when no error was reported.
    pub fn is_empty(&self) -> bool {
        self.num_errors == 0
    }

    /// How many errors were reported (kept or not).
    pub fn count(&self) -> usize {
        self.num_errors
    }

    /// cel-go's `Errors.ToDisplayString`: errors sorted (stably) by line then column, one
    /// rendering each, joined by newlines, and `N more errors were truncated` past 100.
    pub fn to_display_string(&self, source: &Source) -> String {
        let mut sorted: Vec<&Error> = self.errors.iter().collect();
        crd_studio_gostd::sort::stable_by(&mut sorted, |a, b| {
            (a.location.line, a.location.column).cmp(&(b.location.line, b.location.column))
        });
        let mut parts: Vec<String> = sorted
            .iter()
            .take(self.max_errors_to_report)
            .map(|e| e.to_display_string(source))
            .collect();
        if self.num_errors > self.max_errors_to_report {
            parts.push(format!(
                "{} more errors were truncated",
                self.num_errors - self.max_errors_to_report
            ));
        }
        parts.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn display(text: &str, line: i32, col: i32, msg: &str) -> String {
        let mut e = Errors::new();
        e.report(0, Location::new(line, col), msg);
        e.to_display_string(&Source::new(text))
    }

    #[test]
    fn renders_like_cel_go() {
        let cases: &[(&str, i32, i32, &str)] = &[
            ("a + ", 1, 4, "ERROR: <input>:1:5: boom\n | a + \n | ....^"),
            ("x\n\ty", 2, 1, "ERROR: <input>:2:2: boom\n |  y\n | .^"),
            ("é + 1", 1, 2, "ERROR: <input>:1:3: boom\n | é + 1\n | ．.^"),
            ("aé", 1, 1, "ERROR: <input>:1:2: boom\n | aé\n | .＾"),
            ("", 1, -1, "ERROR: <input>:1:0: boom"),
            ("abc", -1, -1, "ERROR: <input>:-1:0: boom"),
        ];
        for (text, line, col, want) in cases {
            assert_eq!(display(text, *line, *col, "boom"), *want, "{text:?}");
        }
    }

    #[test]
    fn sorted_and_truncated() {
        let src = Source::new("ab");
        let mut e = Errors::new();
        e.report(0, Location::new(1, 1), "second");
        e.report(0, Location::NONE, "first");
        assert!(e
            .to_display_string(&src)
            .starts_with("ERROR: <input>:-1:0: first\n"));
        let mut many = Errors::new();
        for _ in 0..103 {
            many.report(0, Location::new(1, 0), "x");
        }
        assert_eq!(many.errors().len(), 100);
        assert!(many
            .to_display_string(&src)
            .ends_with("\n3 more errors were truncated"));
    }
}
