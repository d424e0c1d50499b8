//! Matchers for the README's `expect` shapes (field errors as multisets, substrings,
//! JSON subsets and equality, Go durations).

use super::*;

/// The server's name of an error's type (`FieldValueInvalid`).
pub(crate) fn error_type(e: &FieldErrorReport) -> String {
    serde_json::to_value(e.error_type)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

pub(super) fn type_is(e: &FieldErrorReport, t: &str) -> bool {
    error_type(e) == t
}

/// A short rendering of a value for failure reasons.
pub(crate) fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 300 {
        format!("{}…", s.chars().take(300).collect::<String>())
    } else {
        s
    }
}

pub(crate) fn show_errors(errors: &[FieldErrorReport]) -> String {
    if errors.is_empty() {
        return "no errors".to_owned();
    }
    let all: Vec<String> = errors
        .iter()
        .map(|e| format!("{} {}", error_type(e), e.error))
        .collect();
    show(&json!(all))
}

pub(super) fn json_eq(what: &str, want: &Value, got: &Value) -> Checked {
    if want == got {
        Ok(())
    } else {
        fail(format!("{what}: got {}, want {}", show(got), show(want)))
    }
}

/// Every key of `want` (recursively for objects) has the same value in `got`.
pub(super) fn json_subset(what: &str, want: &Value, got: &Value) -> Checked {
    fn subset(want: &Value, got: &Value) -> bool {
        match (want, got) {
            (Value::Object(w), Value::Object(g)) => w
                .iter()
                .all(|(k, v)| g.get(k).is_some_and(|gv| subset(v, gv))),
            _ => want == got,
        }
    }
    if subset(want, got) {
        Ok(())
    } else {
        fail(format!("{what}: got {}, want {}", show(got), show(want)))
    }
}

pub(super) fn count(what: &str, want: Option<&Value>, got: usize) -> Checked {
    match want.and_then(Value::as_u64) {
        Some(n) if n != got as u64 => fail(format!("{got} {what}, want {n}")),
        _ => Ok(()),
    }
}

pub(super) fn no_errors(errors: &[FieldErrorReport]) -> Checked {
    if errors.is_empty() {
        Ok(())
    } else {
        fail(format!("unexpected errors: {}", show_errors(errors)))
    }
}

pub(super) fn all_of_type(errors: &[FieldErrorReport], t: &str) -> Checked {
    match errors.iter().find(|e| !type_is(e, t)) {
        Some(e) => fail(format!(
            "error of type {}, want {t}: {}",
            error_type(e),
            e.error
        )),
        None => Ok(()),
    }
}

pub(super) fn all_contain(errors: &[FieldErrorReport], sub: &str) -> Checked {
    match errors.iter().find(|e| !e.error.contains(sub)) {
        Some(e) => fail(format!("error {:?} does not contain {sub:?}", e.error)),
        None => Ok(()),
    }
}

/// The errors match `want` exactly as a multiset: each `{type, field, contains?, detail?}`
/// consumes one error with that type and field (whose `Error()` contains `contains` and
/// whose detail is `detail`, when given), and no error is left over.
pub(super) fn field_errors_multiset(want: &[Value], got: &[FieldErrorReport]) -> Checked {
    let fits = |i: usize, j: usize| {
        let (Some(w), Some(g)) = (want.get(i), got.get(j)) else {
            return false;
        };
        let text = |k: &str| w.get(k).and_then(Value::as_str);
        text("type").is_none_or(|t| type_is(g, t))
            && text("field").is_none_or(|f| f == g.field)
            && text("contains").is_none_or(|c| g.error.contains(c))
            && text("detail").is_none_or(|d| d == g.detail)
    };
    let (missing, extra) = match_all(want.len(), got.len(), fits);
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    let missing: Vec<String> = missing
        .iter()
        .filter_map(|&i| want.get(i))
        .map(show)
        .collect();
    let extra: Vec<String> = extra
        .iter()
        .filter_map(|&j| got.get(j))
        .map(|e| format!("{} {}", error_type(e), e.error))
        .collect();
    fail(format!("missing {missing:?}, unexpected {extra:?}"))
}

/// Every error consumes a distinct expected substring and every substring is consumed.
pub(super) fn consume_substrings(want: &[&str], got: &[String]) -> Checked {
    let fits = |i: usize, j: usize| match (want.get(i), got.get(j)) {
        (Some(w), Some(g)) => g.contains(w),
        _ => false,
    };
    let (missing, extra) = match_all(want.len(), got.len(), fits);
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    let missing: Vec<&&str> = missing.iter().filter_map(|&i| want.get(i)).collect();
    let extra: Vec<&String> = extra.iter().filter_map(|&j| got.get(j)).collect();
    fail(format!(
        "unmatched substrings {missing:?}, unmatched errors {extra:?}"
    ))
}

/// Every expected substring is in some message.
pub(super) fn each_contained_somewhere(want: &[&str], got: &[String]) -> Checked {
    match want.iter().find(|w| !got.iter().any(|g| g.contains(*w))) {
        Some(w) => fail(format!("no error contains {w:?}: {got:?}")),
        None => Ok(()),
    }
}

/// Every message contains one of the expected substrings (none expected: no messages).
pub(super) fn each_contains_one_of(got: &[String], want: &[&str]) -> Checked {
    match got.iter().find(|g| !want.iter().any(|w| g.contains(w))) {
        Some(g) => fail(format!("unexpected error {g:?}")),
        None => Ok(()),
    }
}

/// Table cells: equal, except `{ageDurationAbsSecondsAtMost: n}`, which wants a Go
/// duration string within n seconds of zero.
pub(super) fn cells(want: &[Value], got: &[Value]) -> Checked {
    if want.len() != got.len() {
        return fail(format!(
            "cells {}, want {}",
            show(&json!(got)),
            show(&json!(want))
        ));
    }
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        if let Some(limit) = w.get("ageDurationAbsSecondsAtMost").and_then(Value::as_f64) {
            let secs = g.as_str().and_then(go_duration_seconds);
            if !secs.is_some_and(|s| s.abs() <= limit) {
                return fail(format!("cell {i}: {g}, want an age within {limit} s"));
            }
        } else if w != g {
            return fail(format!("cell {i}: {g}, want {w}"));
        }
    }
    Ok(())
}

/// Seconds of a Go duration string (`1m30s`, `-2h`, `500ms`, `0s`).
fn go_duration_seconds(s: &str) -> Option<f64> {
    let (sign, mut rest) = match s.strip_prefix('-') {
        Some(r) => (-1.0, r),
        None => (1.0, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    let mut total = 0.0;
    let mut any = false;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest.get(..digits)?.parse().ok()?;
        rest = rest.get(digits..)?;
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = rest.get(..unit_len)?;
        rest = rest.get(unit_len..)?;
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += number * scale;
        any = true;
    }
    any.then_some(sign * total)
}

/// A maximum matching between expected items and actual items (`fits(i, j)`): the
/// expected items left unmatched and the actual items left unmatched (augmenting paths,
/// so an early greedy choice never hides a perfect matching).
pub(super) fn match_all(
    n_want: usize,
    n_got: usize,
    fits: impl Fn(usize, usize) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    let edges: Vec<Vec<usize>> = (0..n_want)
        .map(|i| (0..n_got).filter(|&j| fits(i, j)).collect())
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; n_got];
    fn augment(
        i: usize,
        edges: &[Vec<usize>],
        owner: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for &j in edges.get(i).map(Vec::as_slice).unwrap_or_default() {
            if seen.get(j).copied().unwrap_or(true) {
                continue;
            }
            if let Some(s) = seen.get_mut(j) {
                *s = true;
            }
            let current = owner.get(j).copied().flatten();
            if current.is_none_or(|k| augment(k, edges, owner, seen)) {
                if let Some(o) = owner.get_mut(j) {
                    *o = Some(i);
                }
                return true;
            }
        }
        false
    }
    let mut unmatched_want = Vec::new();
    for i in 0..n_want {
        let mut seen = vec![false; n_got];
        if !augment(i, &edges, &mut owner, &mut seen) {
            unmatched_want.push(i);
        }
    }
    let unmatched_got = (0..n_got)
        .filter(|&j| owner.get(j).copied().flatten().is_none())
        .collect();
    (unmatched_want, unmatched_got)
}
