//! kubectl's and the server's readers on their own, for callers that exercise one of them
//! without a CRD (the fuzz targets, the benchmarks, the tests): the document reader,
//! JSONPath templates and field selectors.

use serde_json::Value;

use crate::documents::document::{self, ParsedText};
use crate::printing::field_selector;
use crate::printing::jsonpath::JsonPath;
use crate::{Selection, SourceId};

pub use crate::documents::document::MAX_DEPTH;
pub use crate::printing::field_selector::SelectorVersion;

/// A text read into trees with positions (YAML or JSON, every document), before anything
/// is judged: what the engine's first step costs, for comparisons with a whole analysis.
#[derive(Clone, Debug)]
pub struct DocumentTrees(ParsedText);

impl DocumentTrees {
    /// Reads `text`.
    pub fn parse(text: &str, source: SourceId) -> DocumentTrees {
        DocumentTrees(document::parse(text, source))
    }

    /// How many documents have a value.
    pub fn values(&self) -> usize {
        self.0.values().count()
    }
}

/// A client-go JSONPath template (`{.spec.replicas}`, as printer columns and `kubectl get
/// -o jsonpath` use them) executed on `data`: the printed text, or the parse or execution
/// error. `allow_missing_keys` as `kubectl get -o jsonpath` sets it.
pub fn jsonpath(template: &str, data: &Value, allow_missing_keys: bool) -> Result<String, String> {
    JsonPath::parse(template)?
        .allow_missing_keys(allow_missing_keys)
        .execute(data)
}

/// `kubectl get --field-selector selector` over `objects` of one CRD version (parse,
/// `ConvertFieldLabel`, `GetAttrs`, match).
pub fn select_by_field_selector(
    version: &SelectorVersion,
    selector: &str,
    objects: &[Value],
) -> Selection {
    field_selector::select(version, selector, objects)
}
