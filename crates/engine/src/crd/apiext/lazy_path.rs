//! Field paths for the schema walks of CRD validation, kept on the stack as the walk descends
//! and turned into a [`FieldPath`] only when an error is reported.
//!
//! A walk over a large schema visits every node but reports (almost) nothing, so building an
//! owned path per node (a `Vec` of `String`s cloned from the parent's) is most of its cost.
//! Each [`LazyPath`] borrows its parent; [`LazyPath::to_path`] gives the same [`FieldPath`] as
//! the equivalent `FieldPath::child` / `key` / `index` calls.

use std::fmt;

use crate::documents::path::{FieldPath, Segment};

/// A field path as a chain of borrowed steps (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) enum LazyPath<'a> {
    /// An owned path the walk starts from.
    Base(&'a FieldPath),
    /// `parent.name`, where `name` may hold several names separated by dots (as
    /// [`FieldPath::child`]).
    Child(&'a LazyPath<'a>, &'a str),
    /// `parent.name`, `name` taken as one field name (as [`FieldPath::child_name`]).
    Name(&'a LazyPath<'a>, &'a str),
    /// `parent[key]`.
    Key(&'a LazyPath<'a>, &'a str),
    /// `parent[i]`.
    Index(&'a LazyPath<'a>, usize),
}

impl<'a> LazyPath<'a> {
    /// A walk's starting path.
    pub(crate) fn new(base: &'a FieldPath) -> LazyPath<'a> {
        LazyPath::Base(base)
    }

    /// This path followed by `.name` (several names may be given with dots: `a.b`).
    pub(crate) fn child<'b>(&'b self, name: &'b str) -> LazyPath<'b> {
        LazyPath::Child(self, name)
    }

    /// This path followed by `.name`, taken as one field name even if it holds dots.
    pub(crate) fn child_name<'b>(&'b self, name: &'b str) -> LazyPath<'b> {
        LazyPath::Name(self, name)
    }

    /// This path followed by `[key]`.
    pub(crate) fn key<'b>(&'b self, key: &'b str) -> LazyPath<'b> {
        LazyPath::Key(self, key)
    }

    /// This path followed by `[i]`.
    pub(crate) fn index(&self, i: usize) -> LazyPath<'_> {
        LazyPath::Index(self, i)
    }

    /// The owned path.
    pub(crate) fn to_path(self) -> FieldPath {
        // The steps from this one up to the base, then replayed from the base down.
        let mut steps = Vec::new();
        let mut cur = &self;
        let base = loop {
            match cur {
                LazyPath::Base(b) => break *b,
                LazyPath::Child(p, _)
                | LazyPath::Name(p, _)
                | LazyPath::Key(p, _)
                | LazyPath::Index(p, _) => {
                    steps.push(cur);
                    cur = p;
                }
            }
        };
        let mut segs = base.0.clone();
        for step in steps.iter().rev() {
            match step {
                LazyPath::Base(_) => {}
                LazyPath::Child(_, name) => {
                    segs.extend(name.split('.').map(|n| Segment::Field(n.to_owned())))
                }
                LazyPath::Name(_, name) => segs.push(Segment::Field((*name).to_owned())),
                LazyPath::Key(_, key) => segs.push(Segment::Key((*key).to_owned())),
                LazyPath::Index(_, i) => segs.push(Segment::Index(*i)),
            }
        }
        FieldPath(segs)
    }
}

impl fmt::Display for LazyPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_path().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_paths_as_field_path() {
        let base = FieldPath::new("spec").child("validation");
        let lazy = LazyPath::new(&base);
        let a = lazy.child("schema.openAPIV3Schema");
        let b = a.child("properties");
        let c = b.key("a.b");
        let d = c.index(3);
        let e = d.child_name("$ref");
        let owned = base
            .child("schema.openAPIV3Schema")
            .child("properties")
            .key("a.b")
            .index(3)
            .child_name("$ref");
        assert_eq!(e.to_path(), owned);
        assert_eq!(e.to_string(), owned.to_string());
        assert_eq!(LazyPath::new(&base).to_path(), base);
        let root = FieldPath::root();
        assert_eq!(
            LazyPath::new(&root).index(0).to_path(),
            FieldPath::root().index(0)
        );
    }
}
