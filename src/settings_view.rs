//! The settings in the page's top bar: the field validation mode and the Kubernetes version
//! the analysis models ([`Settings`]), and the colour theme ([`ThemeSelect`]).

use crd_studio_engine::{FieldValidation, KubernetesVersion};
use yew::prelude::*;

use crate::studio_ctx::StudioCtx;
use crate::theme::{self, Theme};

/// Properties of [`Settings`].
#[derive(Properties, PartialEq)]
pub(crate) struct SettingsProps {
    /// The studio's shared state.
    pub(crate) ctx: StudioCtx,
}

/// The Field validation and Kubernetes selectors.
#[component]
pub(crate) fn Settings(props: &SettingsProps) -> Html {
    let ctx = &props.ctx;
    let on_field_validation = {
        let field_validation = ctx.field_validation.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let mode = FieldValidation::parse(&select.value()).unwrap_or_default();
            field_validation.set(mode);
        })
    };
    let on_kubernetes_version = {
        let kubernetes_version = ctx.kubernetes_version.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            // The options are `KubernetesVersion::all()`, newest first: the index names one.
            let index = usize::try_from(select.selected_index()).ok();
            if let Some(v) = index.and_then(|i| KubernetesVersion::all().rev().nth(i)) {
                kubernetes_version.set(v);
            }
        })
    };
    let kube_shown = *ctx.kubernetes_version;
    let mode_name = ctx.field_validation.name();
    html! {
        <>
            <label class="option" title="How the server treats unknown and duplicate fields, like kubectl --validate">
                <span>{ "Field validation" }</span>
                <select aria-label="Field validation" onchange={on_field_validation}>
                    { for FieldValidation::ALL.into_iter().map(|m| {
                        let name = m.name();
                        html! { <option value={name} selected={name == mode_name}>{ name }</option> }
                    }) }
                </select>
            </label>
            <label class="option" title="The Kubernetes version whose API server is modelled: its CEL libraries, formats and feature gates">
                <span>{ "Kubernetes" }</span>
                <select aria-label="Kubernetes version" onchange={on_kubernetes_version}>
                    { for KubernetesVersion::all().rev().map(|v| {
                        let name = v.to_string();
                        html! { <option value={name.clone()} selected={v == kube_shown}>{ name }</option> }
                    }) }
                </select>
            </label>
        </>
    }
}

/// The Theme selector: system, light or dark, remembered and applied at once.
#[component]
pub(crate) fn ThemeSelect() -> Html {
    let theme_choice = use_state(theme::stored);
    let on_theme = {
        let theme_choice = theme_choice.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let chosen = Theme::parse(&select.value());
            theme::store(chosen);
            theme::apply(chosen);
            theme_choice.set(chosen);
        })
    };
    html! {
        <label class="option theme" title="Light or dark colours; System theme follows your system's setting">
            <span>{ "Theme" }</span>
            <select aria-label="Theme" onchange={on_theme}>
                { for Theme::ALL.into_iter().map(|t| html! {
                    <option value={t.name()} selected={t == *theme_choice}>{ t.label() }</option>
                }) }
            </select>
        </label>
    }
}
