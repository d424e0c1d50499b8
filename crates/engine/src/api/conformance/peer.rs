//! What `cargo xtask peer` renders in the peer tools' words (crdify, crd-schema-checker): the
//! breaking-change analysis with the data behind each message, and the CEL cost facts of a
//! CRD revision.

pub use crate::crd_diff::cost_budget::{
    cost_facts, NodeFacts, RuleFacts, VersionFacts, RULE_LIMIT, TOTAL_LIMIT,
};
pub use crate::crd_diff::{diff_crds_detailed, schema_path_text, ChangeDetail, SchemaStep};
