//! Reading an internal CRD: from an `apiextensions.k8s.io/v1` CRD (decoding, v1 defaulting,
//! the v1 → internal conversion) or from the internal JSON shape the conformance data uses,
//! with the problems of reading it.

use super::*;

/// Whether `key` holds a JSON array: Go's decoder makes a non-nil slice of it, even empty.
pub(super) fn is_list(m: &Map<String, Json>, key: &str) -> bool {
    matches!(m.get(key), Some(Json::Array(_)))
}

/// A problem found while decoding a CRD: what the server's decoder would refuse (or, for an
/// unknown field, warn about or refuse depending on field validation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeProblem {
    /// The JSON path of the value (`spec.versions[0].served`).
    pub path: String,
    /// The decoder's message.
    pub message: String,
    /// `true` for an unknown field (strict decoding), `false` for a value of the wrong type.
    pub unknown_field: bool,
}

/// Which JSON shape is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `apiextensions.k8s.io/v1`.
    V1,
    /// The internal type with v1beta1-style names (the conformance data).
    Internal,
}

pub(super) struct Reader {
    pub(super) shape: Shape,
    pub(super) problems: Vec<DecodeProblem>,
}

pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The path without list indexes, as Go's decoder names fields.
pub(super) fn go_field_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => in_index = true,
            ']' => in_index = false,
            c if !in_index => out.push(c),
            _ => {}
        }
    }
    out
}

impl Reader {
    pub(super) fn type_error(&mut self, path: &str, go_struct: &str, value: &Json, go_type: &str) {
        let kind = match value {
            Json::Number(n) if go_type.starts_with("int") || go_type.starts_with("uint") => {
                format!("number {n}")
            }
            other => go_json_kind(other).to_owned(),
        };
        self.problems.push(DecodeProblem {
            path: path.to_owned(),
            message: format!(
                "json: cannot unmarshal {kind} into Go struct field {go_struct}.{} of type {go_type}",
                go_field_path(path)
            ),
            unknown_field: false,
        });
    }

    pub(super) fn unknown(&mut self, path: &str) {
        self.problems.push(DecodeProblem {
            path: path.to_owned(),
            message: format!("unknown field {}", crd_studio_gostd::strconv::quote(path)),
            unknown_field: true,
        });
    }

    /// The object at `value`, or `None` (reporting a type error unless null).
    pub(super) fn object<'j>(
        &mut self,
        value: Option<&'j Json>,
        path: &str,
        go_struct: &str,
        go_type: &str,
    ) -> Option<&'j Map<String, Json>> {
        match value? {
            Json::Object(m) => Some(m),
            Json::Null => None,
            other => {
                self.type_error(path, go_struct, other, go_type);
                None
            }
        }
    }

    pub(super) fn check_keys(&mut self, m: &Map<String, Json>, path: &str, known: &[&str]) {
        for k in m.keys() {
            if !known.contains(&k.as_str()) {
                self.unknown(&join(path, k));
            }
        }
    }

    pub(super) fn string(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> String {
        self.opt_string(m, key, path, go_struct).unwrap_or_default()
    }

    pub(super) fn opt_string(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Option<String> {
        match m.get(key)? {
            Json::String(s) => Some(s.clone()),
            Json::Null => None,
            other => {
                self.type_error(&join(path, key), go_struct, other, "string");
                None
            }
        }
    }

    pub(super) fn boolean(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> bool {
        self.opt_bool(m, key, path, go_struct).unwrap_or(false)
    }

    pub(super) fn opt_bool(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Option<bool> {
        match m.get(key)? {
            Json::Bool(b) => Some(*b),
            Json::Null => None,
            other => {
                self.type_error(&join(path, key), go_struct, other, "bool");
                None
            }
        }
    }

    pub(super) fn int(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
        go_type: &str,
    ) -> Option<i64> {
        let v = m.get(key)?;
        let (lo, hi) = if go_type == "int32" {
            (i32::MIN as i64, i32::MAX as i64)
        } else {
            (i64::MIN, i64::MAX)
        };
        match v {
            Json::Number(n) => match n.as_i64() {
                Some(i) if (lo..=hi).contains(&i) => Some(i),
                _ => {
                    self.type_error(&join(path, key), go_struct, v, go_type);
                    None
                }
            },
            Json::Null => None,
            other => {
                self.type_error(&join(path, key), go_struct, other, go_type);
                None
            }
        }
    }

    pub(super) fn strings(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Vec<String> {
        match m.get(key) {
            Some(Json::Array(items)) => {
                let p = join(path, key);
                items
                    .iter()
                    .filter_map(|i| match i {
                        Json::String(s) => Some(s.clone()),
                        // A null element decodes to the zero value.
                        Json::Null => Some(String::new()),
                        other => {
                            self.type_error(&p, go_struct, other, "string");
                            None
                        }
                    })
                    .collect()
            }
            Some(Json::Null) | None => Vec::new(),
            Some(other) => {
                self.type_error(&join(path, key), go_struct, other, "[]string");
                Vec::new()
            }
        }
    }

    pub(super) fn string_map(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> BTreeMap<String, String> {
        match m.get(key) {
            Some(Json::Object(items)) => {
                let p = join(path, key);
                items
                    .iter()
                    .filter_map(|(k, v)| match v {
                        Json::String(s) => Some((k.clone(), s.clone())),
                        Json::Null => Some((k.clone(), String::new())),
                        other => {
                            self.type_error(&p, go_struct, other, "string");
                            None
                        }
                    })
                    .collect()
            }
            Some(Json::Null) | None => BTreeMap::new(),
            Some(other) => {
                self.type_error(&join(path, key), go_struct, other, "map[string]string");
                BTreeMap::new()
            }
        }
    }

    /// A list of objects, each read with `read`.
    pub(super) fn list<T>(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
        go_elem: &str,
        mut read: impl FnMut(&mut Reader, &Map<String, Json>, &str) -> T,
    ) -> Vec<T> {
        let p = join(path, key);
        match m.get(key) {
            Some(Json::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let ip = format!("{p}[{i}]");
                    match item {
                        Json::Object(im) => out.push(read(self, im, &ip)),
                        Json::Null => out.push(read(self, &Map::new(), &ip)),
                        other => self.type_error(&p, go_struct, other, go_elem),
                    }
                }
                out
            }
            Some(Json::Null) | None => Vec::new(),
            Some(other) => {
                self.type_error(&p, go_struct, other, &format!("[]{go_elem}"));
                Vec::new()
            }
        }
    }

    pub(super) fn metadata(&mut self, v: Option<&Json>) -> ObjectMeta {
        let path = "metadata";
        let Some(m) = self.object(v, path, "CustomResourceDefinition", "v1.ObjectMeta") else {
            return ObjectMeta::default();
        };
        let st = "ObjectMeta";
        self.check_keys(m, path, &crate::object::objectmeta::OBJECT_META_FIELDS);
        let owner_references = self.list(
            m,
            "ownerReferences",
            path,
            st,
            "v1.OwnerReference",
            |r, om, p| {
                let st = "OwnerReference";
                r.check_keys(
                    om,
                    p,
                    &[
                        "apiVersion",
                        "kind",
                        "name",
                        "uid",
                        "controller",
                        "blockOwnerDeletion",
                    ],
                );
                OwnerReference {
                    api_version: r.string(om, "apiVersion", p, st),
                    kind: r.string(om, "kind", p, st),
                    name: r.string(om, "name", p, st),
                    uid: r.string(om, "uid", p, st),
                    controller: r.opt_bool(om, "controller", p, st),
                    block_owner_deletion: r.opt_bool(om, "blockOwnerDeletion", p, st),
                }
            },
        );
        ObjectMeta {
            name: self.string(m, "name", path, st),
            generate_name: self.string(m, "generateName", path, st),
            namespace: self.string(m, "namespace", path, st),
            uid: self.string(m, "uid", path, st),
            resource_version: self.string(m, "resourceVersion", path, st),
            generation: self.int(m, "generation", path, st, "int64").unwrap_or(0),
            creation_timestamp: self
                .time(m, "creationTimestamp", path, st)
                .unwrap_or(Time::ZERO),
            deletion_timestamp: self.time(m, "deletionTimestamp", path, st),
            deletion_grace_period_seconds: self.int(
                m,
                "deletionGracePeriodSeconds",
                path,
                st,
                "int64",
            ),
            labels: self.string_map(m, "labels", path, st),
            annotations: self.string_map(m, "annotations", path, st),
            owner_references,
            finalizers: self.strings(m, "finalizers", path, st),
            ..ObjectMeta::default()
        }
    }

    /// A `metav1.Time` field: `time.Parse(time.RFC3339, s)` of a string (its error is the
    /// decode error, as `Time.UnmarshalJSON` returns it), `None` when absent or null.
    pub(super) fn time(
        &mut self,
        m: &Map<String, Json>,
        key: &str,
        path: &str,
        go_struct: &str,
    ) -> Option<Time> {
        let text = self.opt_string(m, key, path, go_struct)?;
        match parse_rfc3339(&text) {
            Ok(t) => Some(t),
            Err(message) => {
                self.problems.push(DecodeProblem {
                    path: join(path, key),
                    message,
                    unknown_field: false,
                });
                None
            }
        }
    }

    pub(super) fn names(&mut self, v: Option<&Json>, path: &str, go_struct: &str) -> Names {
        let Some(m) = self.object(v, path, go_struct, "v1.CustomResourceDefinitionNames") else {
            return Names::default();
        };
        let st = "CustomResourceDefinitionNames";
        self.check_keys(
            m,
            path,
            &[
                "plural",
                "singular",
                "shortNames",
                "kind",
                "listKind",
                "categories",
            ],
        );
        Names {
            plural: self.string(m, "plural", path, st),
            singular: self.string(m, "singular", path, st),
            short_names: self.strings(m, "shortNames", path, st),
            kind: self.string(m, "kind", path, st),
            list_kind: self.string(m, "listKind", path, st),
            categories: self.strings(m, "categories", path, st),
        }
    }

    pub(super) fn validation(
        &mut self,
        v: Option<&Json>,
        path: &str,
        go_struct: &str,
    ) -> Option<CustomResourceValidation> {
        let m = self.object(v, path, go_struct, "v1.CustomResourceValidation")?;
        self.check_keys(m, path, &["openAPIV3Schema"]);
        let p = join(path, "openAPIV3Schema");
        let schema = match m.get("openAPIV3Schema") {
            None | Some(Json::Null) => None,
            Some(s @ Json::Object(_)) => {
                let (props, errors) = JsonSchemaProps::from_json(s);
                for e in errors {
                    let full = join(&p, &e.path);
                    self.problems.push(DecodeProblem {
                        message: if e.unknown_field {
                            format!("unknown field {}", crd_studio_gostd::strconv::quote(&full))
                        } else {
                            e.message
                        },
                        path: full,
                        unknown_field: e.unknown_field,
                    });
                }
                Some(Box::new(props))
            }
            Some(other) => {
                self.type_error(&p, "CustomResourceValidation", other, "v1.JSONSchemaProps");
                None
            }
        };
        Some(CustomResourceValidation {
            open_api_v3_schema: schema,
        })
    }

    pub(super) fn subresources(
        &mut self,
        v: Option<&Json>,
        path: &str,
        go_struct: &str,
    ) -> Option<Subresources> {
        let m = self.object(v, path, go_struct, "v1.CustomResourceSubresources")?;
        let st = "CustomResourceSubresources";
        self.check_keys(m, path, &["status", "scale"]);
        let status = match m.get("status") {
            None | Some(Json::Null) => false,
            Some(Json::Object(sm)) => {
                self.check_keys(sm, &join(path, "status"), &[]);
                true
            }
            Some(other) => {
                self.type_error(
                    &join(path, "status"),
                    st,
                    other,
                    "v1.CustomResourceSubresourceStatus",
                );
                false
            }
        };
        let sp = join(path, "scale");
        let scale = self
            .object(m.get("scale"), &sp, st, "v1.CustomResourceSubresourceScale")
            .map(|sm| {
                let st = "CustomResourceSubresourceScale";
                self.check_keys(
                    sm,
                    &sp,
                    &[
                        "specReplicasPath",
                        "statusReplicasPath",
                        "labelSelectorPath",
                    ],
                );
                Scale {
                    spec_replicas_path: self.string(sm, "specReplicasPath", &sp, st),
                    status_replicas_path: self.string(sm, "statusReplicasPath", &sp, st),
                    label_selector_path: self.opt_string(sm, "labelSelectorPath", &sp, st),
                }
            });
        Some(Subresources { status, scale })
    }

    pub(super) fn columns(
        &mut self,
        m: &Map<String, Json>,
        path: &str,
        go_struct: &str,
    ) -> Vec<ColumnDefinition> {
        let shape = self.shape;
        self.list(
            m,
            "additionalPrinterColumns",
            path,
            go_struct,
            "v1.CustomResourceColumnDefinition",
            |r, cm, p| {
                let st = "CustomResourceColumnDefinition";
                let json_path_key = if shape == Shape::Internal && cm.contains_key("JSONPath") {
                    "JSONPath"
                } else {
                    "jsonPath"
                };
                r.check_keys(
                    cm,
                    p,
                    &[
                        "name",
                        "type",
                        "format",
                        "description",
                        "priority",
                        json_path_key,
                    ],
                );
                ColumnDefinition {
                    name: r.string(cm, "name", p, st),
                    type_: r.string(cm, "type", p, st),
                    format: r.string(cm, "format", p, st),
                    description: r.string(cm, "description", p, st),
                    priority: r.int(cm, "priority", p, st, "int32").unwrap_or(0),
                    json_path: r.string(cm, json_path_key, p, st),
                }
            },
        )
    }

    pub(super) fn selectable_fields(
        &mut self,
        m: &Map<String, Json>,
        path: &str,
        go_struct: &str,
    ) -> Vec<SelectableField> {
        let shape = self.shape;
        self.list(
            m,
            "selectableFields",
            path,
            go_struct,
            "v1.SelectableField",
            |r, fm, p| {
                let key = if shape == Shape::Internal && fm.contains_key("JSONPath") {
                    "JSONPath"
                } else {
                    "jsonPath"
                };
                r.check_keys(fm, p, &[key]);
                SelectableField {
                    json_path: r.string(fm, key, p, "SelectableField"),
                }
            },
        )
    }

    pub(super) fn version(&mut self, m: &Map<String, Json>, path: &str) -> CrdVersion {
        let st = "CustomResourceDefinitionVersion";
        self.check_keys(
            m,
            path,
            &[
                "name",
                "served",
                "storage",
                "deprecated",
                "deprecationWarning",
                "schema",
                "subresources",
                "additionalPrinterColumns",
                "selectableFields",
            ],
        );
        CrdVersion {
            name: self.string(m, "name", path, st),
            served: self.boolean(m, "served", path, st),
            storage: self.boolean(m, "storage", path, st),
            deprecated: self.boolean(m, "deprecated", path, st),
            deprecation_warning: self.opt_string(m, "deprecationWarning", path, st),
            schema: self.validation(m.get("schema"), &join(path, "schema"), st),
            subresources: self.subresources(m.get("subresources"), &join(path, "subresources"), st),
            additional_printer_columns: self.columns(m, path, st),
            additional_printer_columns_set: is_list(m, "additionalPrinterColumns"),
            selectable_fields: self.selectable_fields(m, path, st),
            selectable_fields_set: is_list(m, "selectableFields"),
        }
    }

    pub(super) fn service(&mut self, v: Option<&Json>, path: &str) -> Option<ServiceReference> {
        let m = self.object(v, path, "WebhookClientConfig", "v1.ServiceReference")?;
        let st = "ServiceReference";
        self.check_keys(m, path, &["namespace", "name", "path", "port"]);
        let port = self.int(m, "port", path, st, "int32");
        Some(ServiceReference {
            namespace: self.string(m, "namespace", path, st),
            name: self.string(m, "name", path, st),
            path: self.opt_string(m, "path", path, st),
            // v1 defaults a missing port to 443 (SetDefaults_ServiceReference); the internal
            // type has a plain int32 whose zero value is 0.
            port: port.unwrap_or(if self.shape == Shape::V1 { 443 } else { 0 }),
        })
    }

    pub(super) fn client_config(
        &mut self,
        v: Option<&Json>,
        path: &str,
        go_struct: &str,
    ) -> Option<WebhookClientConfig> {
        let m = self.object(v, path, go_struct, "v1.WebhookClientConfig")?;
        let st = "WebhookClientConfig";
        self.check_keys(m, path, &["url", "service", "caBundle"]);
        let ca_bundle = match m.get("caBundle") {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::String(s)) => match crd_studio_gostd::base64::decode(s) {
                Some(b) => b,
                None if self.shape == Shape::Internal => s.as_bytes().to_vec(),
                None => {
                    self.problems.push(DecodeProblem {
                        path: join(path, "caBundle"),
                        message: "illegal base64 data at input byte 0".to_owned(),
                        unknown_field: false,
                    });
                    Vec::new()
                }
            },
            Some(other) => {
                self.type_error(&join(path, "caBundle"), st, other, "[]uint8");
                Vec::new()
            }
        };
        Some(WebhookClientConfig {
            url: self.opt_string(m, "url", path, st),
            service: self.service(m.get("service"), &join(path, "service")),
            ca_bundle,
        })
    }

    pub(super) fn conversion(&mut self, v: Option<&Json>, path: &str) -> Option<Conversion> {
        let m = self.object(
            v,
            path,
            "CustomResourceDefinitionSpec",
            "v1.CustomResourceConversion",
        )?;
        let st = "CustomResourceConversion";
        let strategy = self.string(m, "strategy", path, st);
        match self.shape {
            Shape::V1 => {
                self.check_keys(m, path, &["strategy", "webhook"]);
                let wp = join(path, "webhook");
                let mut c = Conversion {
                    strategy,
                    ..Conversion::default()
                };
                if let Some(wm) = self.object(m.get("webhook"), &wp, st, "v1.WebhookConversion") {
                    self.check_keys(wm, &wp, &["clientConfig", "conversionReviewVersions"]);
                    c.conversion_review_versions =
                        self.strings(wm, "conversionReviewVersions", &wp, "WebhookConversion");
                    c.webhook_client_config = self.client_config(
                        wm.get("clientConfig"),
                        &join(&wp, "clientConfig"),
                        "WebhookConversion",
                    );
                }
                Some(c)
            }
            Shape::Internal => {
                self.check_keys(
                    m,
                    path,
                    &[
                        "strategy",
                        "webhookClientConfig",
                        "conversionReviewVersions",
                    ],
                );
                Some(Conversion {
                    strategy,
                    webhook_client_config: self.client_config(
                        m.get("webhookClientConfig"),
                        &join(path, "webhookClientConfig"),
                        st,
                    ),
                    conversion_review_versions: self.strings(
                        m,
                        "conversionReviewVersions",
                        path,
                        st,
                    ),
                })
            }
        }
    }

    pub(super) fn status(&mut self, v: Option<&Json>) -> CrdStatus {
        let path = "status";
        let Some(m) = self.object(
            v,
            path,
            "CustomResourceDefinition",
            "v1.CustomResourceDefinitionStatus",
        ) else {
            return CrdStatus::default();
        };
        let st = "CustomResourceDefinitionStatus";
        self.check_keys(
            m,
            path,
            &[
                "conditions",
                "acceptedNames",
                "storedVersions",
                "observedGeneration",
            ],
        );
        let conditions = self.list(
            m,
            "conditions",
            path,
            st,
            "v1.CustomResourceDefinitionCondition",
            |r, cm, p| {
                let st = "CustomResourceDefinitionCondition";
                r.check_keys(
                    cm,
                    p,
                    &[
                        "type",
                        "status",
                        "lastTransitionTime",
                        "reason",
                        "message",
                        "observedGeneration",
                    ],
                );
                Condition {
                    type_: r.string(cm, "type", p, st),
                    status: r.string(cm, "status", p, st),
                    reason: r.string(cm, "reason", p, st),
                    message: r.string(cm, "message", p, st),
                }
            },
        );
        CrdStatus {
            conditions,
            accepted_names: self.names(m.get("acceptedNames"), "status.acceptedNames", st),
            stored_versions: self.strings(m, "storedVersions", path, st),
        }
    }

    pub(super) fn crd(&mut self, v: &Json) -> InternalCrd {
        let Json::Object(root) = v else {
            self.problems.push(DecodeProblem {
                path: String::new(),
                message: format!(
                    "json: cannot unmarshal {} into Go value of type v1.CustomResourceDefinition",
                    go_json_kind(v)
                ),
                unknown_field: false,
            });
            return InternalCrd::default();
        };
        self.check_keys(root, "", V1_ROOT_KEYS);
        let metadata = self.metadata(root.get("metadata"));
        let status = self.status(root.get("status"));
        let mut spec = CrdSpec::default();
        if let Some(m) = self.object(
            root.get("spec"),
            "spec",
            "CustomResourceDefinition",
            "v1.CustomResourceDefinitionSpec",
        ) {
            let path = "spec";
            let st = "CustomResourceDefinitionSpec";
            let mut known = vec![
                "group",
                "names",
                "scope",
                "versions",
                "conversion",
                "preserveUnknownFields",
            ];
            if self.shape == Shape::Internal {
                known.extend([
                    "version",
                    "validation",
                    "subresources",
                    "additionalPrinterColumns",
                    "selectableFields",
                ]);
            }
            self.check_keys(m, path, &known);
            spec.group = self.string(m, "group", path, st);
            spec.names = self.names(m.get("names"), "spec.names", st);
            spec.scope = self.string(m, "scope", path, st);
            spec.versions_set = is_list(m, "versions");
            spec.versions = self.list(
                m,
                "versions",
                path,
                st,
                "v1.CustomResourceDefinitionVersion",
                |r, vm, p| r.version(vm, p),
            );
            spec.conversion = self.conversion(m.get("conversion"), "spec.conversion");
            match self.shape {
                Shape::V1 => {
                    spec.preserve_unknown_fields =
                        Some(self.boolean(m, "preserveUnknownFields", path, st));
                }
                Shape::Internal => {
                    spec.preserve_unknown_fields =
                        self.opt_bool(m, "preserveUnknownFields", path, st);
                    spec.version = self.string(m, "version", path, st);
                    spec.validation = self.validation(m.get("validation"), "spec.validation", st);
                    spec.subresources =
                        self.subresources(m.get("subresources"), "spec.subresources", st);
                    spec.additional_printer_columns = self.columns(m, path, st);
                    spec.selectable_fields = self.selectable_fields(m, path, st);
                }
            }
        }
        InternalCrd {
            metadata,
            spec,
            status,
        }
    }
}

/// Reads the conformance data's internal CRD shape (v1beta1-style names: `spec.version`,
/// `spec.validation.openAPIV3Schema`, top-level `subresources`, `additionalPrinterColumns`
/// with `JSONPath` or `jsonPath`, `conversion.webhookClientConfig`). No defaulting or
/// conversion is applied. A `caBundle` that is not base64 is taken as the raw bytes (the data
/// writes PEM text as is).
#[cfg(any(test, feature = "conformance"))]
pub fn from_internal_json(v: &Json) -> (InternalCrd, Vec<DecodeProblem>) {
    let mut r = Reader {
        shape: Shape::Internal,
        problems: Vec::new(),
    };
    let crd = r.crd(v);
    (crd, r.problems)
}

/// Reads an `apiextensions.k8s.io/v1` CRD as the server does on a request: decoding (problems
/// are returned beside the partial result), v1 defaulting (`SetObjectDefaults_
/// CustomResourceDefinition`: singular, listKind, conversion strategy `None`, service port 443,
/// storedVersions) and the v1 → internal conversion.
pub fn from_v1_json(v: &Json) -> (InternalCrd, Vec<DecodeProblem>) {
    let mut r = Reader {
        shape: Shape::V1,
        problems: Vec::new(),
    };
    let mut crd = r.crd(v);
    set_v1_defaults(&mut crd);
    convert_v1_to_internal(&mut crd.spec);
    (crd, r.problems)
}

/// The problems [`from_v1_json`] reports first for `v`, a JSON object: its unknown top-level
/// fields (the check of the root's keys, done before anything else is read). The rest of its
/// problems depend only on the known top-level fields (`apiVersion`, `kind`, `metadata`,
/// `spec`, `status`), as does the CRD it returns.
pub fn root_key_problems(v: &Json) -> Vec<DecodeProblem> {
    let mut r = Reader {
        shape: Shape::V1,
        problems: Vec::new(),
    };
    if let Json::Object(root) = v {
        r.check_keys(root, "", V1_ROOT_KEYS);
    }
    r.problems
}

/// The top-level fields of a v1 CRD.
pub const V1_ROOT_KEYS: &[&str] = &["apiVersion", "kind", "metadata", "spec", "status"];

/// `SetObjectDefaults_CustomResourceDefinition` (on the v1 form; the service port default is
/// applied while reading).
pub(super) fn set_v1_defaults(crd: &mut InternalCrd) {
    let spec = &mut crd.spec;
    if spec.names.singular.is_empty() {
        spec.names.singular = spec.names.kind.to_lowercase();
    }
    if spec.names.list_kind.is_empty() && !spec.names.kind.is_empty() {
        spec.names.list_kind = format!("{}List", spec.names.kind);
    }
    if spec.conversion.is_none() {
        spec.conversion = Some(Conversion {
            strategy: "None".to_owned(),
            ..Conversion::default()
        });
    }
    if crd.status.stored_versions.is_empty() {
        if let Some(v) = spec.versions.iter().find(|v| v.storage) {
            crd.status.stored_versions.push(v.name.clone());
        }
    }
}

/// `Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec`:
/// `version` from `versions[0]`, and per-version fields that are identical in every version
/// moved to the top level.
pub(super) fn convert_v1_to_internal(spec: &mut CrdSpec) {
    let Some(first) = spec.versions.first() else {
        return;
    };
    spec.version = first.name.clone();
    let same_subresources = spec
        .versions
        .iter()
        .all(|v| v.subresources == first.subresources);
    // The first version against the others (comparing a large schema with itself cost a
    // walk of the whole tree).
    let same_schema = spec
        .versions
        .iter()
        .skip(1)
        .all(|v| v.schema == first.schema);
    let same_columns = spec
        .versions
        .iter()
        .all(|v| v.additional_printer_columns == first.additional_printer_columns);
    let same_fields = spec
        .versions
        .iter()
        .all(|v| v.selectable_fields == first.selectable_fields);
    if same_subresources {
        spec.subresources = first.subresources.clone();
    }
    if same_columns {
        spec.additional_printer_columns = first.additional_printer_columns.clone();
    }
    if same_fields {
        spec.selectable_fields = first.selectable_fields.clone();
    }
    if same_schema {
        // Moved rather than copied: every version's schema is cleared below.
        spec.validation = spec.versions.first_mut().and_then(|v| v.schema.take());
    }
    for v in &mut spec.versions {
        if same_subresources {
            v.subresources = None;
        }
        if same_schema {
            v.schema = None;
        }
        if same_columns {
            v.additional_printer_columns.clear();
        }
        if same_fields {
            v.selectable_fields.clear();
        }
    }
}
