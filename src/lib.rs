//! CRD Studio web app (placeholder).
