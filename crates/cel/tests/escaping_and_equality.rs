//! Custom-resource data as CEL sees it: property-name escaping, equality of list-type set/map
//! and atomic lists and of objects, `x-kubernetes-int-or-string` values, `in`, and the optional
//! syntax and functions. Expectations come from reading `k8s.io/apiserver/pkg/cel/escaping.go`,
//! `pkg/cel/common/valuesunstructured.go` and `valuesreflect.go` (equality, `+` on set and map
//! lists, `Find` on objects), `pkg/cel/common/schemas.go` (int-or-string is `dyn`),
//! `pkg/cel/environment/environment.go` (keywords as field names from 1.31), and cel-go's
//! `common/types/optional.go`, `cel/library.go` (optional functions) and
//! `interpreter/attributes.go` (optional selection and indexing).

mod support;

use crd_studio_cel::unstructured::{escape, unescape};
use serde_json::json;
use support::{at, check_self_table, eval_self_at};

#[test]
fn escape_rules() {
    for (name, want) in [
        ("plain", Some("plain")),
        ("_leading", Some("_leading")),
        ("a_b", Some("a_b")),
        ("x-y", Some("x__dash__y")),
        ("a.b", Some("a__dot__b")),
        ("a/b", Some("a__slash__b")),
        ("-", Some("__dash__")),
        (".leading", Some("__dot__leading")),
        ("__x", Some("__underscores__x")),
        ("x__y__z", Some("x__underscores__y__underscores__z")),
        // A third underscore is kept as is after the pair.
        ("a___b", Some("a__underscores___b")),
        (
            "example.com/v1-beta",
            Some("example__dot__com__slash__v1__dash__beta"),
        ),
        // Every CEL reserved word, exactly: `__word__`.
        ("namespace", Some("__namespace__")),
        ("true", Some("__true__")),
        ("in", Some("__in__")),
        ("while", Some("__while__")),
        // Not reserved: other spellings and longer names.
        ("Namespace", Some("Namespace")),
        ("namespaces", Some("namespaces")),
        ("in-use", Some("in__dash__use")),
        // Already escaped-looking names escape their underscores.
        (
            "__namespace__",
            Some("__underscores__namespace__underscores__"),
        ),
        // Not accessible: empty, a leading digit, other characters.
        ("", None),
        ("1a", None),
        ("9", None),
        ("a b", None),
        ("a:b", None),
        ("a@b", None),
        ("é", None),
        ("a+b", None),
    ] {
        assert_eq!(escape(name).as_deref(), want, "escape({name:?})");
        if let Some(escaped) = want {
            assert_eq!(
                unescape(escaped).as_deref(),
                Some(name),
                "unescape({escaped:?})"
            );
        }
    }
    // Unescaping rejects unknown sequences, and a keyword sequence that is not the whole name.
    assert_eq!(unescape("a__foo__b"), None);
    assert_eq!(unescape("x__namespace__"), None);
    assert_eq!(unescape("a__b"), Some("a__b".into()));
}

fn escaped_schema() -> serde_json::Value {
    let s = json!({"type": "string"});
    json!({
        "type": "object",
        "properties": {
            "x-y": s, "a.b": s, "a/b": s, "__u": s, "namespace": s, "in": s,
            "1a": s, "a b": s, "plain": s,
            "labels": {"type": "object", "additionalProperties": s}
        }
    })
}

fn escaped_object() -> serde_json::Value {
    json!({
        "x-y": "dash", "a.b": "dot", "a/b": "slash", "__u": "under", "namespace": "ns",
        "in": "kw", "1a": "digit", "a b": "space", "plain": "p",
        "labels": {"app.kubernetes.io/name": "web", "x__dash__y": "literal"}
    })
}

#[test]
fn escaped_property_access() {
    check_self_table(
        &escaped_schema(),
        &escaped_object(),
        None,
        &[
            ("self.x__dash__y", "'dash'"),
            ("self.a__dot__b", "'dot'"),
            ("self.a__slash__b", "'slash'"),
            ("self.__underscores__u", "'under'"),
            ("self.__namespace__", "'ns'"),
            ("self.__in__", "'kw'"),
            ("has(self.x__dash__y)", "true"),
            // Unescapable names are not fields of the object type.
            ("self.a_b", "compile: undefined field 'a_b'"),
            ("self.plain == 'p'", "true"),
            // Maps from additionalProperties use the raw keys, with no unescaping.
            ("self.labels['app.kubernetes.io/name']", "'web'"),
            ("self.labels.x__dash__y", "'literal'"),
            ("'x-y' in self.labels", "false"),
            // Iterating an object (as dyn) yields the escaped names of the properties present.
            ("dyn(self).exists(k, k == 'x__dash__y')", "true"),
            ("dyn(self).exists(k, k == 'x-y')", "false"),
            ("dyn(self).exists(k, k == '__namespace__')", "true"),
        ],
    );
}

#[test]
fn keywords_as_field_names_arrive_at_1_31() {
    let schema = escaped_schema();
    let object = escaped_object();
    // From 1.31 the declared-type provider also finds `namespace` under its escaped name.
    assert_eq!(
        eval_self_at(at(31), &schema, &object, None, "self.namespace"),
        "'ns'"
    );
    assert_eq!(
        eval_self_at(at(30), &schema, &object, None, "self.namespace"),
        "compile: undefined field 'namespace'"
    );
    assert_eq!(
        eval_self_at(at(30), &schema, &object, None, "self.__namespace__"),
        "'ns'"
    );
    // As a bare identifier a reserved word is still a parse error.
    assert_eq!(
        eval_self_at(at(31), &schema, &object, None, "namespace == 'ns'"),
        "compile: reserved identifier: namespace"
    );
}

fn list_schema(list_type: Option<&str>, items: serde_json::Value) -> serde_json::Value {
    let mut l = json!({"type": "array", "items": items});
    if let Some(t) = list_type {
        l["x-kubernetes-list-type"] = json!(t);
        if t == "map" {
            l["x-kubernetes-list-map-keys"] = json!(["k"]);
        }
    }
    l
}

#[test]
fn set_lists_compare_as_sets() {
    let int = json!({"type": "integer"});
    let schema = json!({
        "type": "object",
        "properties": {
            "s1": list_schema(Some("set"), int.clone()),
            "s2": list_schema(Some("set"), int.clone()),
            "dup": list_schema(Some("set"), int.clone()),
            "a1": list_schema(None, int.clone()),
            "a2": list_schema(Some("atomic"), int.clone()),
            "strs": list_schema(Some("set"), json!({"type": "string"})),
            "lists": list_schema(Some("set"), list_schema(None, int))
        }
    });
    let object = json!({
        "s1": [1, 2, 3], "s2": [3, 1, 2], "dup": [1, 1, 2],
        "a1": [1, 2, 3], "a2": [3, 1, 2],
        "strs": ["b", "a"], "lists": [[1], [2]]
    });
    check_self_table(
        &schema,
        &object,
        None,
        &[
            // Sets ignore order, in either operand position.
            ("self.s1 == self.s2", "true"),
            ("self.s1 == [2, 3, 1]", "true"),
            ("[2, 3, 1] == self.s1", "false"),
            ("self.strs == ['a', 'b']", "true"),
            // Same size, different members.
            ("self.s1 == [1, 1, 2]", "false"),
            ("self.dup == [1, 2, 3]", "false"),
            ("self.s1 == [1, 2]", "false"),
            // Atomic lists compare by position.
            ("self.a1 == self.a2", "false"),
            ("self.a1 == [1, 2, 3]", "true"),
            // Set members are keyed by their raw value: 1 and 1.0 differ there, not in an
            // atomic list.
            ("self.s1 == dyn([1.0, 2.0, 3.0])", "false"),
            ("self.a1 == dyn([1.0, 2.0, 3.0])", "true"),
            // Sets of non-scalars cannot be compared.
            (
                "self.lists == [[2], [1]]",
                "error: listSet operations are only supported on lists of scalar values",
            ),
            // `+` on a set is a union keeping the left order; the result is still a set.
            ("self.s1 + [4, 1]", "[1, 2, 3, 4]"),
            ("self.s1 + [4, 1] == [4, 3, 2, 1]", "true"),
            ("self.s2 + self.s1", "[3, 1, 2]"),
            // A literal on the left concatenates.
            ("[4] + self.s1", "[4, 1, 2, 3]"),
            ("self.a1 + self.a2", "[1, 2, 3, 3, 1, 2]"),
            // Membership uses heterogeneous equality.
            ("2 in self.s1", "true"),
            ("dyn(2.0) in self.s1", "true"),
            ("dyn(2u) in self.a1", "true"),
            ("9 in self.s1", "false"),
        ],
    );
}

#[test]
fn map_lists_compare_by_key() {
    let entry = json!({
        "type": "object",
        "required": ["k"],
        "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}
    });
    let schema = json!({
        "type": "object",
        "properties": {"m": {"type": "array", "items": list_schema(Some("map"), entry.clone())},
                        "atomic": {"type": "array", "items": list_schema(None, entry)}}
    });
    let object = json!({
        "m": [
            [{"k": "a", "v": 1}, {"k": "b", "v": 2}],
            [{"k": "b", "v": 2}, {"k": "a", "v": 1}],
            [{"k": "b", "v": 3}, {"k": "c", "v": 4}],
            [{"k": "a", "v": 1}, {"k": "b"}]
        ],
        "atomic": [
            [{"k": "a", "v": 1}, {"k": "b", "v": 2}],
            [{"k": "b", "v": 2}, {"k": "a", "v": 1}]
        ]
    });
    check_self_table(
        &schema,
        &object,
        None,
        &[
            ("self.m[0] == self.m[1]", "true"),
            ("self.m[0] == self.m[2]", "false"),
            // Same keys, a field missing in one entry.
            ("self.m[0] == self.m[3]", "false"),
            ("self.atomic[0] == self.atomic[1]", "false"),
            // `+` merges by key: left positions kept, values from the right, new keys appended.
            ("(self.m[0] + self.m[2]).map(e, e.k)", "['a', 'b', 'c']"),
            ("(self.m[0] + self.m[2]).map(e, e.v)", "[1, 3, 4]"),
            // Two merges holding the same entries in other orders are equal.
            (
                "self.m[2] + self.m[0] == self.m[0] + [self.m[2][1]]",
                "true",
            ),
            ("self.m[2] + self.m[0] == self.m[0]", "false"),
            ("size(self.m[0] + self.m[1])", "2"),
            ("size(self.atomic[0] + self.atomic[1])", "4"),
        ],
    );
}

#[test]
fn object_equality_uses_every_field() {
    let schema = json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "n": {"type": "integer", "nullable": true},
                "1a": {"type": "string"}
            }
        }}}
    });
    let object = json!({"items": [
        {"a": "x", "1a": "p"},
        {"a": "x", "1a": "q"},
        {"a": "x", "1a": "p"},
        {"a": "x", "1a": "p", "n": null}
    ]});
    check_self_table(
        &schema,
        &object,
        None,
        &[
            ("self.items[0] == self.items[2]", "true"),
            // A property CEL cannot name still takes part in equality.
            ("self.items[0] == self.items[1]", "false"),
            // A null field reads as absent, but the objects differ in size.
            ("has(self.items[3].n)", "false"),
            ("self.items[0] == self.items[3]", "false"),
            // Objects never equal map literals: the checker refuses the comparison.
            (
                "self.items[0] == {'a': 'x'}",
                "compile: found no matching overload for '_==_' applied to '(selfType.items.@idx, map(string, string))'",
            ),
        ],
    );
}

#[test]
fn int_or_string_is_dyn() {
    let schema = json!({
        "type": "object",
        "properties": {
            "i": {"x-kubernetes-int-or-string": true},
            "s": {"x-kubernetes-int-or-string": true},
            "f": {"x-kubernetes-int-or-string": true},
            "list": {"type": "array", "items": {"x-kubernetes-int-or-string": true}}
        }
    });
    let object = json!({"i": 5, "s": "50%", "f": 1.5, "list": [1, "1", 2]});
    check_self_table(
        &schema,
        &object,
        None,
        &[
            ("type(self.i)", "type(int)"),
            ("type(self.s)", "type(string)"),
            ("type(self.i) == int ? self.i < 10 : false", "true"),
            ("self.i == 5", "true"),
            ("self.i == 5.0", "true"),
            ("self.i == '5'", "false"),
            ("self.s == 50", "false"),
            ("self.s.endsWith('%')", "true"),
            ("double(self.s.replace('%', '')) / 100.0", "0.5"),
            // Operations the runtime type lacks fail when evaluated, not when checked.
            ("self.s + 1", "error: no such overload"),
            ("self.i.startsWith('5')", "error: no such overload"),
            ("self.s > 3", "error: no such overload"),
            (
                "int(self.s)",
                "error: type conversion error from 'string' to 'int'",
            ),
            ("string(self.i) + '%'", "'5%'"),
            // A number that is not an integer is invalid int-or-string data.
            (
                "self.f == 1",
                "error: invalid data, expected XIntOrString value to be either a string or integer",
            ),
            // Lists of int-or-string mix types freely.
            ("self.list.filter(x, type(x) == string)", "['1']"),
            ("1 in self.list", "true"),
            ("self.list.indexOf('1')", "1"),
        ],
    );
}

#[test]
fn optionals_on_data() {
    let schema = json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {
                "a": {"type": "string"},
                "c": {"type": "string"},
                "nested": {"type": "object", "properties": {"b": {"type": "integer"}}}
            }},
            "m": {"type": "object", "additionalProperties": {"type": "integer"}},
            "l": {"type": "array", "items": {"type": "integer"}}
        }
    });
    let object = json!({"spec": {"a": "x"}, "m": {"k": 1}, "l": [10, 20]});
    check_self_table(
        &schema,
        &object,
        None,
        &[
            ("self.spec.?a", "optional.of('x')"),
            ("self.spec.?nested", "optional.none()"),
            ("self.spec.?nested.?b", "optional.none()"),
            ("self.spec.?nested.?b.orValue(7)", "7"),
            ("self.spec.?a.orValue('d')", "'x'"),
            ("self.spec.?nested.b", "optional.none()"),
            ("self.?spec.?a.hasValue()", "true"),
            ("self.m[?'k']", "optional.of(1)"),
            ("self.m[?'z']", "optional.none()"),
            ("self.m.?k", "optional.of(1)"),
            ("self.l[?1]", "optional.of(20)"),
            ("self.l[?2]", "optional.none()"),
            ("self.l[?-1]", "optional.none()"),
            // Without `?` a missing element is an error.
            ("self.l[2]", "error: index out of bounds: 2"),
            ("self.m['z']", "error: no such key: z"),
            ("self.spec.nested.b", "error: no such key: nested"),
            ("[?self.spec.?a, ?self.spec.?c]", "['x']"),
            // (Optional elements still make a homogeneous literal.)
            (
                "[?self.spec.?a, ?self.spec.?nested.?b]",
                "compile: expected type 'string' but found 'int'",
            ),
            ("{?'a': self.spec.?a, ?'c': self.spec.?c}", "{'a': 'x'}"),
            (
                "self.spec.?nested.value()",
                "error: optional.none() dereference",
            ),
            ("self.spec.?nested.?b.or(self.m.?k).value()", "1"),
        ],
    );
}

#[test]
fn optional_functions() {
    support::check_table(
        support::STORED,
        &[
            ("optional.of(1)", "optional.of(1)"),
            ("optional.none()", "optional.none()"),
            ("optional.of(null).hasValue()", "true"),
            ("optional.none().hasValue()", "false"),
            ("optional.none().value()", "error: optional.none() dereference"),
            ("optional.of(2).value()", "2"),
            ("optional.none().orValue(3)", "3"),
            ("optional.of(2).orValue(3)", "2"),
            ("optional.none().or(optional.of(4))", "optional.of(4)"),
            ("optional.of(1).or(optional.of(4))", "optional.of(1)"),
            ("optional.none().or(optional.none())", "optional.none()"),
            // Zero values of each kind count as absent for ofNonZeroValue.
            ("optional.ofNonZeroValue(0)", "optional.none()"),
            ("optional.ofNonZeroValue('')", "optional.none()"),
            ("optional.ofNonZeroValue([])", "optional.none()"),
            ("optional.ofNonZeroValue({})", "optional.none()"),
            ("optional.ofNonZeroValue(false)", "optional.none()"),
            ("optional.ofNonZeroValue(null)", "optional.none()"),
            ("optional.ofNonZeroValue(0.0)", "optional.none()"),
            ("optional.ofNonZeroValue(1)", "optional.of(1)"),
            ("optional.of(2).optMap(x, x * 2)", "optional.of(4)"),
            ("optional.none().optMap(x, x * 2)", "optional.none()"),
            ("optional.of(2).optFlatMap(x, optional.none())", "optional.none()"),
            ("optional.of(2).optFlatMap(x, optional.of(x + 1))", "optional.of(3)"),
            // Optional equality compares the wrapped values.
            ("optional.of(1) == optional.of(dyn(1.0))", "true"),
            (
                "optional.of(1) == optional.of(1.0)",
                "compile: found no matching overload for '_==_' applied to '(optional_type(int), optional_type(double))'",
            ),
            ("optional.none() == optional.none()", "true"),
            ("optional.of(1) == optional.none()", "false"),
            // Optional entries in literals.
            ("[1, ?optional.none(), ?optional.of(3)]", "[1, 3]"),
            ("{'a': 1, ?'b': optional.none()}", "{'a': 1}"),
            ("{'a': 1}[?'a']", "optional.of(1)"),
            ("{'a': 1}.?b", "optional.none()"),
            ("[1, 2][?5]", "optional.none()"),
            ("optional.of({'a': 1}).?a", "optional.of(1)"),
            ("optional.none().?a", "optional.none()"),
            ("type(optional.none())", "type(optional_type)"),
        ],
    );
}
